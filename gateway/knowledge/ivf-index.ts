// The approximate vector index (issue 22): an inverted file over one workspace's vectors of one
// space. Rows are grouped into ~√n lists by a two-level spherical k-means (√lists top clusters, each
// split in proportion to its share of the sample), so assigning 100k rows costs ~2√lists dot products
// each instead of √n. A query ranks every list's centroid and the caller re-scores the rows of the
// best lists exactly (vector-matrix.ts), reading each list as one contiguous run of the matrix: the
// matrix is copied in list order once built (scattered rows scored ~2.5x slower per row, measured).
// Seeded and independent of the order the store returned the rows in: see seeded-random.ts.
import { chunkKeyHash } from './seeded-random.js';
import { nearest, sphericalKmeans } from './spherical-kmeans.js';
import { dotAt } from './vector-math.js';

/** What the index is built over: a vector matrix, read-only. */
export interface IndexedRows {
  readonly data: Float32Array;
  readonly dims: number;
  readonly size: number;
  docIdOf(row: number): string;
  chunkNoOf(row: number): number;
}

/** Sampled rows per list for the clustering: enough for stable centroids at a fraction of n. */
const SAMPLE_PER_LIST = 24;
const ITERATIONS = 8;
const SEED = 22;
/** Rows between two yields while assigning: about a millisecond at 384 dimensions. */
const ROWS_PER_YIELD = 48;
/** Row numbers share a float64 with a 32-bit hash when sorting the sample (exact below 2^53). */
const MAX_ROWS = 2 ** 21;
/** Lists probed: a share of all lists, and at least enough for ~MIN_SCANNED rows (small indexes
 * have few rows per list, and scoring 2,000 rows costs ~1-2 ms). Chosen for recall@10 ≥ 0.95 on
 * clustered vectors at 10k-100k rows (`npm run bench -- vectors`). */
const PROBE_SHARE = 0.03;
const MIN_SCANNED = 2_000;

export class IvfIndex {
  private constructor(
    private readonly dims: number,
    /** Unit-length list centroids, `dims` floats each. */
    private readonly centroids: Float32Array,
    /** List l is rows starts[l] … starts[l + 1] - 1 of the matrix in list order. */
    private readonly starts: Uint32Array,
    /** How many lists a query probes at least. */
    readonly probes: number,
  ) {}

  get lists(): number {
    return this.starts.length - 1;
  }

  /** The index, and the rows in list order (each list's rows ascending) to copy the matrix by. */
  static *build(rows: IndexedRows): Generator<void, { index: IvfIndex; members: Uint32Array } | undefined> {
    const { data, dims, size } = rows;
    if (size === 0 || size > MAX_ROWS) return undefined;
    const lists = Math.max(1, Math.round(Math.sqrt(size)));
    const sample = yield* sampleRows(rows, Math.min(size, lists * SAMPLE_PER_LIST));
    const top = yield* sphericalKmeans(
      data,
      dims,
      sample,
      Math.max(1, Math.round(Math.sqrt(lists))),
      ITERATIONS,
    );
    const tops = top.centroids.length / dims;
    // Each top cluster gets lists in proportion to its share of the sample; an empty one gets none
    // and is never chosen when assigning.
    const groups: number[][] = Array.from({ length: tops }, () => []);
    for (let i = 0; i < sample.length; i += 1) groups[top.assignment[i] as number]?.push(sample[i] as number);
    const used = groups.map((g, c) => ({ c, g })).filter(({ g }) => g.length > 0);
    const usedTops = new Float32Array(used.length * dims);
    const leafStart = new Uint32Array(used.length + 1);
    const leaves: Float32Array[] = [];
    for (const [u, { c, g }] of used.entries()) {
      usedTops.set(top.centroids.subarray(c * dims, (c + 1) * dims), u * dims);
      const share = Math.max(1, Math.round((lists * g.length) / sample.length));
      const sub = yield* sphericalKmeans(data, dims, Uint32Array.from(g), share, ITERATIONS);
      leaves.push(sub.centroids);
      leafStart[u + 1] = (leafStart[u] as number) + sub.centroids.length / dims;
    }
    const centroids = new Float32Array((leafStart[used.length] as number) * dims);
    leaves.forEach((leaf, u) => centroids.set(leaf, (leafStart[u] as number) * dims));
    const listOf = new Uint32Array(size);
    for (let row = 0; row < size; row += 1) {
      const u = nearest(data, row * dims, usedTops, used.length, dims);
      const from = leafStart[u] as number;
      const count = (leafStart[u + 1] as number) - from;
      listOf[row] = from + nearest(data, row * dims, centroids.subarray(from * dims), count, dims);
      if (row % ROWS_PER_YIELD === ROWS_PER_YIELD - 1) yield;
    }
    const { starts, members } = invert(listOf, leafStart[used.length] as number);
    const count = starts.length - 1;
    const probes = Math.min(
      count,
      Math.max(Math.ceil(count * PROBE_SHARE), Math.ceil(MIN_SCANNED / (size / count))),
    );
    return { index: new IvfIndex(dims, centroids, starts, probes), members };
  }

  /** Every list, the one whose centroid is most similar to `unit` first (ties by list number). */
  probeOrder(unit: Float32Array): Uint32Array {
    const lists = this.lists;
    const scores = new Float64Array(lists);
    for (let l = 0; l < lists; l += 1) scores[l] = dotAt(this.centroids, l * this.dims, unit, 0, this.dims);
    return Uint32Array.from({ length: lists }, (_, l) => l).sort(
      (a, b) => (scores[b] as number) - (scores[a] as number) || a - b,
    );
  }

  /** The first row of list `l` in the list-ordered matrix. */
  start(l: number): number {
    return this.starts[l] as number;
  }

  /** One past the last row of list `l`. */
  end(l: number): number {
    return this.starts[l + 1] as number;
  }
}

/** The `count` rows whose key hashes lowest: a uniform sample that is the same for the same rows
 * in any order, itself in hash order (which seeds the clustering). */
function* sampleRows(rows: IndexedRows, count: number): Generator<void, Uint32Array> {
  const keys = new Float64Array(rows.size);
  for (let row = 0; row < rows.size; row += 1) {
    keys[row] = chunkKeyHash(rows.docIdOf(row), rows.chunkNoOf(row), SEED) * MAX_ROWS + row;
    if (row % 4096 === 4095) yield;
  }
  yield;
  keys.sort();
  yield;
  return Uint32Array.from(keys.subarray(0, count), (key) => key % MAX_ROWS);
}

/** Rows grouped by list (counting sort), each list's rows ascending. */
function invert(listOf: Uint32Array, lists: number): { starts: Uint32Array; members: Uint32Array } {
  const starts = new Uint32Array(lists + 1);
  for (const l of listOf) starts[l + 1] = (starts[l + 1] as number) + 1;
  for (let l = 0; l < lists; l += 1) starts[l + 1] = (starts[l + 1] as number) + (starts[l] as number);
  const next = starts.slice(0, lists);
  const members = new Uint32Array(listOf.length);
  listOf.forEach((l, row) => {
    members[next[l] as number] = row;
    next[l] = (next[l] as number) + 1;
  });
  return { starts, members };
}
