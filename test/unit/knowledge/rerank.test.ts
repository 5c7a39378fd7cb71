import { describe, expect, it } from 'vitest';
import { rerank, termFeatures } from '../../../gateway/knowledge/rerank.js';
import type { SearchHit } from '../../../gateway/knowledge/index.js';

function hit(docId: string, text: string, score: number): SearchHit {
  return {
    docId,
    chunkNo: 0,
    text,
    score,
    title: '',
    url: undefined,
    sourceId: 's',
    sourceType: 'files',
    updatedAt: undefined,
  };
}

describe('rerank', () => {
  it('measures term coverage and the shortest window holding the present terms', () => {
    expect(termFeatures('set an alarm clock for delivery of a signal', ['alarm', 'clock', 'signal'])).toEqual(
      { coverage: 1, window: 7 },
    );
    expect(termFeatures('alarm here, nothing else', ['alarm', 'clock'])).toEqual({
      coverage: 0.5,
      window: 1,
    });
    expect(termFeatures('nothing', ['alarm']).coverage).toBe(0);
  });
  it('lifts a chunk covering all terms close together above one with a higher BM25 score for one term', () => {
    const ranked = rerank(
      [hit('a', 'signal signal signal signal', 1.2), hit('b', 'the alarm clock signal', 1.0)],
      ['alarm', 'clock', 'signal'],
    );
    expect(ranked.map((h) => h.docId)).toEqual(['b', 'a']);
  });
  it('keeps the BM25 order when the features are equal', () => {
    const ranked = rerank([hit('a', 'alarm', 2), hit('b', 'alarm', 1)], ['alarm']);
    expect(ranked.map((h) => h.docId)).toEqual(['a', 'b']);
  });
});
