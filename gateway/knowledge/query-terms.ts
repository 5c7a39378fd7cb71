// Turns free query text into search terms: lower-cased word tokens, stop words dropped, at most 32.
// Terms are matched with OR semantics and ranked by BM25 (knowledge doc §1.2: OR beats AND on recall).
// The stop words are English function words plus the conversational verbs people wrap questions in
// ("can you tell me…", "please explain…", "what happens when…"), which match everything and say
// nothing, and "keep" before an -ing form ("an upstream keeps failing": the failing is the subject).
export const STOP_WORDS: ReadonlySet<string> = new Set(
  [
    'a about after all also am an and any are as at be been before being both but by can could',
    'did do does doing done for from had has have having he her here hers him his how i if in into',
    'is it its just me might more most must my no nor not of off on once only or other our ours out',
    'over own please same shall she should so some such than that the their theirs them then there',
    'these they this those through to too under until up us very was we were what when where which',
    'while who whom why will with would you your yours tell explain know want happen happens happened',
  ]
    .join(' ')
    .split(' '),
);

/** Verbs that only say "again and again" before an -ing form ("keeps failing" is "failing"). */
const ASPECT_VERBS: ReadonlySet<string> = new Set(['keep', 'keeps', 'kept', 'keeping']);

export function queryTerms(query: string): string[] {
  const words = query.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
  const terms: string[] = [];
  for (const [index, word] of words.entries()) {
    if (STOP_WORDS.has(word) || terms.includes(word)) continue;
    if (ASPECT_VERBS.has(word) && /..ing$/.test(words[index + 1] ?? '')) continue;
    terms.push(word);
    if (terms.length === 32) break;
  }
  // A query of only stop words still searches for them rather than for nothing.
  return terms.length > 0 ? terms : [...new Set(words)].slice(0, 32);
}

const SUFFIXES = ['ures', 'ure', 'ing', 'ed', 'es', 's'];

/** The prefix a word must start with to count as the term (re-rank coverage, answer sentences): an
 * inflection stripped, so "failing" finds fail, fails, failed and failure (issue 39); otherwise the
 * term less its last two letters when it is longer than five. The stem keeps at least four letters. */
export function termPrefix(term: string): string {
  for (const suffix of SUFFIXES)
    if (term.endsWith(suffix) && term.length - suffix.length >= 4) return term.slice(0, -suffix.length);
  return term.length > 5 ? term.slice(0, term.length - 2) : term;
}
