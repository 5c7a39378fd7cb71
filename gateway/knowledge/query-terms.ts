// Turns free query text into search terms: lower-cased word tokens, stop words dropped, at most 32.
// Terms are matched with OR semantics and ranked by BM25 (knowledge doc §1.2: OR beats AND on recall).
// The stop words are English function words plus the conversational verbs people wrap questions in
// ("can you tell me…", "please explain…"), which match everything and say nothing.
export const STOP_WORDS: ReadonlySet<string> = new Set(
  [
    'a about after all also am an and any are as at be been before being both but by can could',
    'did do does doing done for from had has have having he her here hers him his how i if in into',
    'is it its just me might more most must my no nor not of off on once only or other our ours out',
    'over own please same shall she should so some such than that the their theirs them then there',
    'these they this those through to too under until up us very was we were what when where which',
    'while who whom why will with would you your yours tell explain know want',
  ]
    .join(' ')
    .split(' '),
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
