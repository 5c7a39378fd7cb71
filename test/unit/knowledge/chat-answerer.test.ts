// The chat answerer's pure parts: which passages fit the context budget, and which citations count.
import { describe, expect, it } from 'vitest';
import { citedPassages, fitPassages } from '../../../gateway/knowledge/index.js';

const passage = (n: number, size: number) => ({ n, title: `T${n}`, text: 'x'.repeat(size) });

describe('citedPassages', () => {
  it('reads [n], [n, m] and [n][m] citations, deduplicated and sorted', () => {
    expect(citedPassages('A [2]. B [1, 3]. C [3][1].', 3)).toEqual([1, 2, 3]);
  });

  it('refuses a citation outside the passages sent', () => {
    expect(citedPassages('A [1]. B [4].', 3)).toBeUndefined();
    expect(citedPassages('A [0].', 3)).toBeUndefined();
  });

  it('finds nothing in an uncited answer', () => {
    expect(citedPassages('No brackets here, or [text] only.', 3)).toEqual([]);
  });
});

describe('fitPassages', () => {
  it('keeps the best-ranked passages within the budget', () => {
    expect(fitPassages([passage(1, 400), passage(2, 400), passage(3, 400)], 1000).map((p) => p.n)).toEqual([
      1, 2,
    ]);
  });

  it('always keeps the first passage, cut to the budget', () => {
    const fitted = fitPassages([passage(1, 5000), passage(2, 10)], 1000);
    expect(fitted).toHaveLength(1);
    expect(fitted[0]?.text.length).toBe(1000);
  });
});
