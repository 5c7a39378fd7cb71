// Re-ranks BM25 candidates by how many distinct query terms a chunk covers and how close together
// they stand (phrase proximity). Store-independent, so both stores rank alike. On the manpages-dev
// known-item set this lifted MRR@10 from 0.317 to 0.335 (see docs/benchmarks.md, knowledge benchmark).
// Coverage and proximity count prose only, and a chunk's score shrinks with its share of code, so a
// command line that happens to contain the question's words ranks below prose about it (issue 8.15).
import { proseOnly, proseShare } from './code-spans.js';
import type { SearchHit } from './knowledge-store.js';
import { termPrefix } from './query-terms.js';

const WORD_CHAR = /^[\p{L}\p{N}_]$/u;

/** Whether one code point is a word character: the class the word split below uses. */
function isWordCodePoint(code: number): boolean {
  if (code < 128)
    return (
      (code >= 97 && code <= 122) || (code >= 48 && code <= 57) || code === 95 || (code >= 65 && code <= 90)
    );
  return WORD_CHAR.test(String.fromCodePoint(code));
}

/** Whether every code point of `prefix` is a word character (a prefix with any other character,
 * or an empty one, is left to the word split, which decides it the same way for any input). */
function wordOnly(prefix: string): boolean {
  if (prefix === '') return false;
  for (const char of prefix) if (!isWordCodePoint(char.codePointAt(0) as number)) return false;
  return true;
}

/** (word position, term index) for every word of `lower` that starts with a prefix, in position
 * order (term order within a word), found by splitting `lower` into words. */
function eventsBySplit(lower: string, prefixes: readonly string[]): [number, number][] {
  const words = lower.match(/[\p{L}\p{N}_]+/gu) ?? [];
  const events: [number, number][] = [];
  words.forEach((word, position) => {
    prefixes.forEach((prefix, index) => {
      if (word.startsWith(prefix)) events.push([position, index]);
    });
  });
  return events;
}

/** The same events without building the words: each prefix is looked up with indexOf, a hit counts
 * where no word character precedes it, and one scan up to the last hit turns offsets into word
 * positions. Rerank runs this for every candidate of every search (200 × ~500 characters). */
function eventsByScan(lower: string, prefixes: readonly string[]): [number, number][] {
  const hits: [number, number][] = [];
  prefixes.forEach((prefix, index) => {
    for (let at = lower.indexOf(prefix); at >= 0; at = lower.indexOf(prefix, at + 1)) hits.push([at, index]);
  });
  if (hits.length === 0) return hits;
  hits.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const events: [number, number][] = [];
  let next = 0;
  let words = 0;
  let inWord = false;
  for (let i = 0; next < hits.length && i < lower.length;) {
    const code = lower.codePointAt(i) as number;
    const word = isWordCodePoint(code);
    // A hit at a word's first character is an event of that word (the prefix is all word
    // characters, so it lies inside the word); a hit anywhere else is inside a word, or off a
    // code point boundary, and is not.
    while (next < hits.length && (hits[next] as [number, number])[0] <= i) {
      const [at, index] = hits[next] as [number, number];
      if (at === i && word && !inWord) events.push([words, index]);
      next += 1;
    }
    if (word && !inWord) words += 1;
    inWord = word;
    i += code > 0xffff ? 2 : 1;
  }
  return events;
}

/** Fraction of distinct terms present, and the shortest word window holding all present terms. */
export function termFeatures(text: string, terms: readonly string[]): { coverage: number; window: number } {
  const lower = text.toLowerCase();
  const prefixes = terms.map(termPrefix);
  // Events come in position order (term order within a word).
  const events = prefixes.every(wordOnly) ? eventsByScan(lower, prefixes) : eventsBySplit(lower, prefixes);
  const present = new Set(events.map(([, index]) => index)).size;
  let window = Number.POSITIVE_INFINITY;
  const counts = new Map<number, number>();
  let have = 0;
  let left = 0;
  for (const [position, index] of events) {
    counts.set(index, (counts.get(index) ?? 0) + 1);
    if (counts.get(index) === 1) have += 1;
    while (have === present && present > 0) {
      const [leftPosition, leftIndex] = events[left] as [number, number];
      window = Math.min(window, position - leftPosition + 1);
      counts.set(leftIndex, (counts.get(leftIndex) ?? 1) - 1);
      if (counts.get(leftIndex) === 0) have -= 1;
      left += 1;
    }
  }
  return { coverage: terms.length === 0 ? 0 : present / terms.length, window };
}

export function rerank(hits: readonly SearchHit[], terms: readonly string[]): SearchHit[] {
  return hits
    .map((hit, index) => {
      const prose = proseOnly(hit.text);
      // The heading path counts like the title: a chunk cut mid-section is still about its section.
      const label = hit.heading === undefined ? hit.title : `${hit.title} ${hit.heading}`;
      const { coverage, window } = termFeatures(`${label} ${prose}`, terms);
      const proximity = Number.isFinite(window) ? 0.3 * Math.min(1, (terms.length * 3) / window) : 0;
      const codeDamping = 0.4 + 0.6 * proseShare(hit.text, prose);
      return {
        hit: { ...hit, score: hit.score * (1 + 0.5 * coverage) * (1 + proximity) * codeDamping },
        index,
      };
    })
    .sort((a, b) => b.hit.score - a.hit.score || a.index - b.index)
    .map(({ hit }) => hit);
}
