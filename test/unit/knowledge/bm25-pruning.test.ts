// The bm25 ceilings behind the SQLite store's pruned top-N (issue 22): the ceiling bounds any row's
// score for a phrase, the plan requires the rarer terms only when the common one dominates, and a top
// is only trusted when its last score clears the ceiling outright.
import { describe, expect, it } from 'vitest';
import { phraseCeiling, provenTop, prunedRanking } from '../../../gateway/knowledge/bm25-pruning.js';

/** FTS5's bm25 contribution of one phrase (fts5_aux.c), for weighted frequency f in a row of D tokens. */
function contribution(matches: number, rows: number, f: number, D: number, avgdl: number): number {
  const raw = Math.log((rows - matches + 0.5) / (matches + 0.5));
  const idf = raw > 0 ? raw : 1e-6;
  return (idf * (f * 2.2)) / (f + 1.2 * (1 - 0.75 + (0.75 * D) / avgdl));
}

describe('phraseCeiling', () => {
  it('bounds the contribution whatever the frequency and length', () => {
    for (const f of [1, 4, 5, 50, 1e6])
      for (const D of [0, 1, 80, 10_000])
        expect(contribution(300, 10_000, f, D, 80)).toBeLessThan(phraseCeiling(300, 10_000));
  });

  it('grows with the row count, so an upper bound of the rows gives an upper bound', () => {
    expect(phraseCeiling(300, 20_000)).toBeGreaterThan(phraseCeiling(300, 10_000));
    expect(phraseCeiling(9_000, 10_000)).toBeCloseTo(2.2e-6);
  });
});

describe('prunedRanking', () => {
  it('requires the rarer terms when the most common one matches at least as many rows as the rest', () => {
    expect(prunedRanking([40, 5_000, 300], 100_000)).toEqual({
      required: [2, 0],
      ceiling: phraseCeiling(5_000, 100_000),
    });
  });

  it('does not prune one term, or terms of similar frequency', () => {
    expect(prunedRanking([5_000], 100_000)).toBeUndefined();
    expect(prunedRanking([3_000, 2_000, 2_000], 100_000)).toBeUndefined();
  });
});

describe('provenTop', () => {
  it('trusts a full top whose last score beats the ceiling', () => {
    expect(provenTop([9, 8, 7.5], 3, 7)).toBe(true);
  });

  it('distrusts a short top, a tie with the ceiling, or a score below it', () => {
    expect(provenTop([9, 8], 3, 7)).toBe(false);
    expect(provenTop([9, 8, 7], 3, 7)).toBe(false);
    expect(provenTop([9, 8, 6], 3, 7)).toBe(false);
  });
});
