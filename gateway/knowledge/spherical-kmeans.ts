// Spherical k-means over unit vectors (issue 22): the clustering behind the approximate vector index.
// Similarity is the dot product, and each centroid is its members' normalised mean. It is a generator
// that yields every few rows, so the caller can spread the work over many short event-loop turns.
import { dotAt } from './vector-math.js';

export interface Clustering {
  /** `k` unit-length centroids, `dims` floats each. */
  readonly centroids: Float32Array;
  /** The centroid each clustered row ended nearest to, in the order the rows were given. */
  readonly assignment: Uint32Array;
}

/** Rows between two yields: about a millisecond of dot products at 384 dimensions and k ≈ 20. */
const ROWS_PER_YIELD = 32;

/** Clusters `rows` of `data` (row-major, `dims` floats per row) into `k` clusters. Deterministic: the
 * first `k` rows seed the centroids, so the caller passes the rows in an order that is random but
 * fixed (hash order). A cluster that loses every member keeps its centroid. */
export function* sphericalKmeans(
  data: Float32Array,
  dims: number,
  rows: Uint32Array,
  k: number,
  iterations: number,
): Generator<void, Clustering> {
  const clusters = Math.max(1, Math.min(k, rows.length));
  const centroids = new Float32Array(clusters * dims);
  for (let c = 0; c < clusters; c += 1)
    centroids.set(data.subarray((rows[c] as number) * dims, ((rows[c] as number) + 1) * dims), c * dims);
  const assignment = new Uint32Array(rows.length);
  const sums = new Float64Array(clusters * dims);
  const counts = new Uint32Array(clusters);
  for (let iteration = 0; iteration < iterations; iteration += 1) {
    sums.fill(0);
    counts.fill(0);
    let moved = 0;
    for (let i = 0; i < rows.length; i += 1) {
      const base = (rows[i] as number) * dims;
      const best = nearest(data, base, centroids, clusters, dims);
      if (best !== assignment[i] || iteration === 0) moved += 1;
      assignment[i] = best;
      counts[best] = (counts[best] as number) + 1;
      const to = best * dims;
      for (let j = 0; j < dims; j += 1) sums[to + j] = (sums[to + j] as number) + (data[base + j] as number);
      if (i % ROWS_PER_YIELD === ROWS_PER_YIELD - 1) yield;
    }
    for (let c = 0; c < clusters; c += 1) if ((counts[c] as number) > 0) normalised(sums, c, dims, centroids);
    if (moved === 0) break;
  }
  return { centroids, assignment };
}

/** The index of the centroid with the highest dot product with the row at `base` (first on ties). */
export function nearest(
  data: Float32Array,
  base: number,
  centroids: Float32Array,
  count: number,
  dims: number,
): number {
  let best = 0;
  let bestScore = -Infinity;
  for (let c = 0; c < count; c += 1) {
    const score = dotAt(data, base, centroids, c * dims, dims);
    if (score > bestScore) {
      bestScore = score;
      best = c;
    }
  }
  return best;
}

function normalised(sums: Float64Array, c: number, dims: number, into: Float32Array): void {
  let norm = 0;
  for (let j = 0; j < dims; j += 1) norm += (sums[c * dims + j] as number) ** 2;
  if (norm === 0) return;
  const scale = 1 / Math.sqrt(norm);
  for (let j = 0; j < dims; j += 1) into[c * dims + j] = (sums[c * dims + j] as number) * scale;
}
