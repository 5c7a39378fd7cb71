// Reading an embeddings response (issue 22): ordered by index, and refused when it lies.
import { describe, expect, it } from 'vitest';
import { EmbeddingFailed, readEmbeddings } from '../../../../gateway/knowledge/embeddings/index.js';

const item = (index: number, embedding: unknown[]) => ({ object: 'embedding', index, embedding });

describe('readEmbeddings', () => {
  it('knowledge:embeddings-response-checked — orders by index and refuses NaN, Infinity and bad counts', () => {
    const read = readEmbeddings({ data: [item(1, [0, 1]), item(0, [1, 0])] }, 2, 2);
    expect(read.map((v) => [...v])).toEqual([
      [1, 0],
      [0, 1],
    ]);
    const lies: [unknown, number][] = [
      [{ data: [item(0, [Number.NaN, 1])] }, 1],
      [{ data: [item(0, [Number.POSITIVE_INFINITY, 1])] }, 1],
      [{ data: [item(0, [1, 0]), item(1, [1, 0])] }, 1],
      [{ data: [item(0, [1, 0])] }, 2],
      [{ data: [item(0.5, [1, 0])] }, 1],
      [{ data: [item(0, [1, 0]), item(1, [1, 0, 0])] }, 2],
      [{ data: 'nope' }, 1],
      [null, 1],
    ];
    for (const [body, count] of lies) {
      expect(() => readEmbeddings(body, count, undefined)).toThrow(EmbeddingFailed);
    }
  });
});
