// The exact top N of an OR query under FTS5's bm25 without scoring every match (issue 22: at 100k
// chunks, scoring every row that holds a common term was most of a search). bm25 gives one query
// phrase at most idf·(k1+1), whatever the row, so a row matching only the most common term scores at
// most that term's ceiling. When the N-th best of the rows matching a rarer term scores above that
// ceiling, those N rows are the exact top N (MaxScore); otherwise the caller ranks every match.

/** FTS5's bm25 k1 (fts5_aux.c); b only shapes the denominator, which the ceiling does not need. */
const K1 = 1.2;

/** The largest top N worth a pruned attempt. The ceiling assumes an unbounded term frequency, so
 * the N-th best row holding a rarer term clears it only while N is small: on the 100k-chunk synthetic
 * corpus (3-word queries) the attempt proved the top 30 for 345 of 1,000 queries but the top 200 for
 * 25, after scoring the rarer rows each time (more work than scoring every match once). A failed
 * attempt changes no result, only time; above this N the match counts are not even asked for. */
export const PRUNED_TOP_MAX = 64;

/** Floating-point slack: a ceiling is only trusted when a score clears it by more than this share. */
const MARGIN = 1e-9;

/** The most bm25 gives one phrase that `matches` rows hold, in a table of at most `rows` rows. The idf
 * is FTS5's (clamped to 1e-6 when not positive) and grows with the row count, so an upper bound of the
 * row count gives an upper bound of the score. */
export function phraseCeiling(matches: number, rows: number): number {
  const idf = Math.log((rows - matches + 0.5) / (matches + 0.5));
  return (idf > 0 ? idf : 1e-6) * (K1 + 1);
}

export interface PrunedRanking {
  /** Indices of the terms a scored row must hold (all but the most common). */
  readonly required: readonly number[];
  /** The highest score a row holding none of them can reach. */
  readonly ceiling: number;
}

/** Whether to score only rows holding the rarer terms: worth a try when the most common term alone
 * matches at least as many rows as all the others together (otherwise the saving is small). */
export function prunedRanking(matches: readonly number[], rows: number): PrunedRanking | undefined {
  if (matches.length < 2) return undefined;
  const order = matches
    .map((_n, index) => index)
    .sort((a, b) => (matches[b] ?? 0) - (matches[a] ?? 0) || a - b);
  const common = matches[order[0] as number] ?? 0;
  const others = matches.reduce((sum, n) => sum + n, 0) - common;
  if (common < others) return undefined;
  return { required: order.slice(1), ceiling: phraseCeiling(common, rows) };
}

/** Whether the `count` best rows holding a required term (`scores`, best first, positive) are the
 * exact overall top `count`: there are `count` of them and the last beats every other row outright
 * (a tie could be ordered before it by rowid). */
export function provenTop(scores: readonly number[], count: number, ceiling: number): boolean {
  const last = scores[count - 1];
  return scores.length === count && last !== undefined && last > ceiling * (1 + MARGIN);
}
