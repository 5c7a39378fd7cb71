// The approximate vector index (issue 22) over an in-memory matrix: recall against exact brute force
// on clustered vectors, the search filters, determinism whatever the row order, exact re-scoring,
// and a build that yields often enough to share the event loop.
import { describe, expect, it } from 'vitest';
import { indexMatrix, type IndexedMatrix } from '../../../gateway/knowledge/indexed-matrix.js';
import type { SearchFilters, VectorHit } from '../../../gateway/knowledge/knowledge-store.js';
import { runNow } from '../../../gateway/knowledge/sliced-work.js';
import { unitVector, vectorBytes } from '../../../gateway/knowledge/vector-math.js';
import { VectorMatrix, type MatrixRow } from '../../../gateway/knowledge/vector-matrix.js';
import { clusteredVectors } from '../../fixtures/clustered-vectors.js';

const SPACE = { model: 'clustered', dimensions: 64 };
const ROWS = 6_000;
const ALL: SearchFilters = { allowedSourceIds: ['docs', 'tickets', 'wiki'] };

/** Rows of three sources: docs (files, 60%), tickets (http, 30%), wiki (files, 10%). */
function corpus(): MatrixRow[] {
  const next = clusteredVectors(SPACE.dimensions, 7, 30, 10).draws(1);
  return Array.from({ length: ROWS }, (_, i) => {
    const kind = i % 10;
    return {
      docId: `d_${String(Math.floor(i / 50)).padStart(4, '0')}`,
      chunkNo: i % 50,
      sourceId: kind < 6 ? 'docs' : kind < 9 ? 'tickets' : 'wiki',
      sourceType: kind >= 6 && kind < 9 ? 'http' : 'files',
      bytes: vectorBytes(unitVector(next(), SPACE)),
    };
  });
}

function queries(count: number): Float32Array[] {
  const next = clusteredVectors(SPACE.dimensions, 7, 30, 10).draws(2);
  return Array.from({ length: count }, () => unitVector(next(), SPACE));
}

const key = (h: VectorHit) => `${h.docId}#${h.chunkNo}`;

function recallAt10(indexed: IndexedMatrix, exact: VectorMatrix, filters: SearchFilters): number {
  let found = 0;
  const qs = queries(100);
  for (const q of qs) {
    const truth = new Set(exact.search(filters, q, 10).map(key));
    const approx = indexed.matrix.search(filters, q, 10, { index: indexed.index, above: 0 });
    found += approx.filter((h) => truth.has(key(h))).length;
  }
  return found / (qs.length * 10);
}

describe('IVF vector index', () => {
  const rows = corpus();
  const exact = new VectorMatrix(SPACE, 1, rows, rows.length);
  const indexed = runNow(indexMatrix(exact)) as IndexedMatrix;

  it('knowledge:vector-approximate-recall — recall@10 against brute force stays high on clustered vectors while scoring a fraction of the rows', () => {
    expect(indexed.index.lists).toBeGreaterThan(40);
    // A broken index (rows in the wrong lists) finds about the share of rows probed: under 0.4.
    expect(indexed.index.probes / indexed.index.lists).toBeLessThan(0.4);
    expect(recallAt10(indexed, exact, ALL)).toBeGreaterThanOrEqual(0.9);
    expect(recallAt10(indexed, exact, { allowedSourceIds: ['docs'] })).toBeGreaterThanOrEqual(0.9);
    // Exact re-scoring: a hit found both ways has the same similarity, bit for bit.
    const [q] = queries(1) as [Float32Array];
    const truth = new Map(exact.search(ALL, q, 10).map((h) => [key(h), h.similarity]));
    for (const hit of indexed.matrix.search(ALL, q, 10, { index: indexed.index, above: 0 }))
      if (truth.has(key(hit))) expect(hit.similarity).toBe(truth.get(key(hit)));
  });

  it('knowledge:vector-approximate-filters — the approximate path honours allowed sources, source and type, and a narrow filter is exact', () => {
    const search = (filters: SearchFilters, q: Float32Array) =>
      indexed.matrix.search(filters, q, 10, { index: indexed.index, above: 1_000 });
    const sourceOf = new Map(rows.map((r) => [`${r.docId}#${r.chunkNo}`, r]));
    for (const q of queries(20)) {
      const docs = search({ allowedSourceIds: ['docs'] }, q);
      expect(docs).toHaveLength(10);
      expect(docs.every((h) => sourceOf.get(key(h))?.sourceId === 'docs')).toBe(true);
      const http = search({ ...ALL, sourceType: 'http' }, q);
      expect(http).toHaveLength(10);
      expect(http.every((h) => sourceOf.get(key(h))?.sourceType === 'http')).toBe(true);
      expect(search({ allowedSourceIds: ['docs'], sourceId: 'tickets' }, q)).toEqual([]);
      expect(search({ allowedSourceIds: [] }, q)).toEqual([]);
      // 600 wiki rows are under the threshold: every one is scored, as brute force does.
      expect(search({ ...ALL, sourceId: 'wiki' }, q)).toEqual(
        exact.search({ ...ALL, sourceId: 'wiki' }, q, 10),
      );
    }
  });

  it('knowledge:vector-approximate-deterministic — the same vectors in another order build the same index and answer alike', () => {
    const shuffled = [...rows].reverse();
    const again = runNow(indexMatrix(new VectorMatrix(SPACE, 1, shuffled, shuffled.length))) as IndexedMatrix;
    expect(again.index.lists).toBe(indexed.index.lists);
    for (const q of queries(30))
      expect(again.matrix.search(ALL, q, 10, { index: again.index, above: 0 })).toEqual(
        indexed.matrix.search(ALL, q, 10, { index: indexed.index, above: 0 }),
      );
  });

  it('knowledge:vector-index-sliced — the build yields at least every few milliseconds', () => {
    const build = indexMatrix(exact);
    let longest = 0;
    let last = performance.now();
    for (let step = build.next(); step.done !== true; step = build.next()) {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
    }
    // ~1 ms of work per step; generous for a loaded CI machine.
    expect(longest).toBeLessThan(50);
  });
});
