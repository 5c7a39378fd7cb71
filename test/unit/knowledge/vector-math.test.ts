// The vector arithmetic under both stores' vector search (issue 22): normalisation with its refusals,
// and the bounded top-k against a full sort.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TopHits, unitVector, vectorBytes } from '../../../gateway/knowledge/vector-math.js';
import { VectorMatrix } from '../../../gateway/knowledge/vector-matrix.js';

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

  it('ranks a matrix built from bytes at any offset, under the source filters', () => {
    const row = (docId: string, sourceId: string, sourceType: string, values: number[], offset: number) => {
      const bytes = vectorBytes(unitVector(Float32Array.from(values), SPACE));
      const shifted = new Uint8Array(bytes.length + offset).subarray(offset);
      shifted.set(bytes);
      return { docId, chunkNo: 0, sourceId, sourceType, bytes: shifted };
    };
    const rows = [
      row('d_a', 'docs', 'files', [1, 0, 0, 0], 1),
      row('d_b', 'docs', 'files', [1, 1, 0, 0], 2),
      row('d_c', 'tickets', 'http', [0, 1, 0, 0], 3),
    ];
    const matrix = new VectorMatrix(SPACE, 1, rows, rows.length);
    const query = unitVector(Float32Array.of(1, 0, 0, 0), SPACE);
    const all = matrix.search({ allowedSourceIds: ['docs', 'tickets'] }, query, 10);
    expect(all.map((h) => [h.docId, Number(h.similarity.toFixed(4))])).toEqual([
      ['d_a', 1],
      ['d_b', 0.7071],
      ['d_c', 0],
    ]);
    expect(matrix.search({ allowedSourceIds: ['docs'] }, query, 10).map((h) => h.docId)).toEqual([
      'd_a',
      'd_b',
    ]);
    expect(
      matrix
        .search({ allowedSourceIds: ['docs', 'tickets'], sourceType: 'http' }, query, 10)
        .map((h) => h.docId),
    ).toEqual(['d_c']);
    expect(matrix.search({ allowedSourceIds: [] }, query, 10)).toEqual([]);
    // A length that is not a multiple of four (the dot product's tail).
    const five = { model: 'm', dimensions: 5 };
    const bytes = vectorBytes(unitVector(Float32Array.of(0, 0, 0, 0, 2), five));
    const tail = new VectorMatrix(
      five,
      1,
      [{ docId: 'd_t', chunkNo: 3, sourceId: 'docs', sourceType: 'files', bytes }],
      1,
    );
    const hit = tail.search(
      { allowedSourceIds: ['docs'] },
      unitVector(Float32Array.of(0, 0, 0, 1, 1), five),
      1,
    );
    expect(hit.map((h) => [h.docId, h.chunkNo, Number(h.similarity.toFixed(4))])).toEqual([
      ['d_t', 3, 0.7071],
    ]);
  });
});
