// The hashing twin (issue 22) that unit tests use in place of a model: deterministic, normalised,
// and closer for texts that share words.
import { describe, expect, it } from 'vitest';
import { HashingEmbeddingProvider, hashingVector } from '../../../../gateway/knowledge/embeddings/index.js';

const norm = (v: Float32Array) => Math.sqrt(v.reduce((sum, x) => sum + x * x, 0));
const cosine = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * (b[i] ?? 0), 0);

describe('HashingEmbeddingProvider', () => {
  it('knowledge:embeddings-twin — same text, same normalised vector; shared words are closer', async () => {
    const twin = new HashingEmbeddingProvider({ dimensions: 256 });
    const [a, b, c, empty] = await twin.embed([
      'the circuit breaker opens after failures',
      'The breaker OPENS after repeated failures',
      'sqlite stores the index on disk',
      '',
    ]);
    expect(twin.dimensions).toBe(256);
    for (const v of [a, b, c, empty]) {
      expect(v).toHaveLength(256);
      expect(norm(v as Float32Array)).toBeCloseTo(1, 5);
    }
    expect([...(a as Float32Array)]).toEqual([
      ...hashingVector('the circuit breaker opens after failures', 256),
    ]);
    expect(cosine(a as Float32Array, b as Float32Array)).toBeGreaterThan(
      cosine(a as Float32Array, c as Float32Array),
    );
    expect(twin.calls).toHaveLength(1);
  });
});
