// Turns free query text into search terms: lower-cased word tokens, stop words dropped, at most 32.
// Terms are matched with OR semantics and ranked by BM25 (knowledge doc §1.2: OR beats AND on recall).
const STOP_WORDS = new Set(
  'a an and are as at be but by for from has have how i if in into is it its of on or such that the their then there these this to was were what when where which who why will with you your'.split(
    ' ',
  ),
);

export function queryTerms(query: string): string[] {
  const words = query.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
  const terms: string[] = [];
  for (const word of words) {
    if (STOP_WORDS.has(word) || terms.includes(word)) continue;
    terms.push(word);
    if (terms.length === 32) break;
  }
  // A query of only stop words still searches for them rather than for nothing.
  return terms.length > 0 ? terms : [...new Set(words)].slice(0, 32);
}
