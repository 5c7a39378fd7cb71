// Re-ranks BM25 candidates by how many distinct query terms a chunk covers and how close together
// they stand (phrase proximity). Store-independent, so both stores rank alike. On the manpages-dev
// known-item set this lifted MRR@10 from 0.317 to 0.335 (see docs/benchmarks.md, knowledge benchmark).
// Coverage and proximity count prose only, and a chunk's score shrinks with its share of code, so a
// command line that happens to contain the question's words ranks below prose about it (issue 8.15).
import { proseOnly, proseShare } from './code-spans.js';
import type { SearchHit } from './knowledge-store.js';
import { termPrefix } from './query-terms.js';

/** Fraction of distinct terms present, and the shortest word window holding all present terms. */
export function termFeatures(text: string, terms: readonly string[]): { coverage: number; window: number } {
  const words = text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
  const prefixes = terms.map(termPrefix);
  // One pass over the words, so the events come in position order (term order within a word).
  const events: [number, number][] = [];
  words.forEach((word, position) => {
    prefixes.forEach((prefix, index) => {
      if (word.startsWith(prefix)) events.push([position, index]);
    });
  });
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
      const { coverage, window } = termFeatures(`${hit.title} ${prose}`, terms);
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
