// The vector arithmetic under both stores' vector search (issue 22): normalisation with its refusals,
// and the bounded top-k against a full sort.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TopHits, dotWithBytes, unitVector, vectorBytes } from '../../../gateway/knowledge/vector-math.js';

const SPACE = { model: 'm', dimensions: 4 };

describe('vector math', () => {
  it('knowledge:vector-top-k — keeps exactly the best k of a full sort, ties by (docId, chunkNo)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            docId: fc.constantFrom('d_a', 'd_b', 'd_c'),
            chunkNo: fc.nat(5),
            // Few distinct values, so ties are common.
            similarity: fc.constantFrom(-1, -0.5, 0, 0.25, 0.5, 1),
          }),
          { maxLength: 60 },
        ),
        fc.nat(12),
        (hits, k) => {
          const top = new TopHits(k);
          for (const hit of hits) if (top.admits(hit.similarity)) top.offer(hit);
          const expected = [...hits]
            .sort(
              (a, b) =>
                b.similarity - a.similarity ||
                (a.docId < b.docId ? -1 : a.docId > b.docId ? 1 : 0) ||
                a.chunkNo - b.chunkNo,
            )
            .slice(0, k);
          expect(top.sorted()).toEqual(expected);
        },
      ),
    );
  });

  it('normalises to unit length and refuses wrong lengths, non-finite values and zero vectors', () => {
    const unit = unitVector(Float32Array.of(3, 0, 4, 0), SPACE);
    expect(Array.from(unit)).toEqual([Math.fround(0.6), 0, Math.fround(0.8), 0]);
    expect(() => unitVector(Float32Array.of(1, 2, 3), SPACE)).toThrow(RangeError);
    expect(() => unitVector(Float32Array.of(1, Number.POSITIVE_INFINITY, 0, 0), SPACE)).toThrow(RangeError);
    expect(() => unitVector(new Float32Array(4), SPACE)).toThrow(RangeError);
  });

  it('reads stored bytes at any offset', () => {
    const query = Float32Array.of(1, 2, 3, 4);
    const stored = vectorBytes(Float32Array.of(0.5, 0.25, 1, 2));
    const unaligned = new Uint8Array(stored.length + 1).subarray(1);
    unaligned.set(stored);
    expect(dotWithBytes(stored, query)).toBeCloseTo(12, 6);
    expect(dotWithBytes(unaligned, query)).toBeCloseTo(12, 6);
  });
});
