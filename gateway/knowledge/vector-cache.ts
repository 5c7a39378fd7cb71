// One workspace's vectors held in gateway memory (issue 22), shared by both stores: the matrix of
// the space last searched, tagged with the workspace's vector epoch, and above a size threshold an
// approximate index over it. The store reads the epoch per search and reloads when it moved; the
// index is built in slices in the background (exact answers until it is ready) or inline.
import { indexMatrix, type IndexedMatrix } from './indexed-matrix.js';
import type { EmbeddingSpace, SearchFilters, VectorHit } from './knowledge-store.js';
import { runInSlices, runNow } from './sliced-work.js';
import type { VectorMatrix } from './vector-matrix.js';

/** `background`: exact answers while the index builds in short slices (the server); `inline`: the
 * first search after a reload builds it (benchmarks and tests that need the approximate path now). */
export type IndexBuild = 'background' | 'inline';

export interface VectorIndexOptions {
  /** At or above this many rows passing a search's filters, the search goes through the index;
   * below it every row is scored. Exact brute force is ~5 ms at 5k × 384 dimensions. */
  readonly approximateAbove: number;
  readonly build: IndexBuild;
}

export const DEFAULT_VECTOR_INDEX: VectorIndexOptions = { approximateAbove: 5_000, build: 'background' };

/** A background build's slice: short enough that a request waits at most this long behind it. */
const SLICE_MS = 8;

/** One matrix and, once built, its index: what a search at one epoch reads. */
export class HeldVectors {
  private plain: VectorMatrix | undefined;
  private indexed: IndexedMatrix | undefined;

  constructor(
    matrix: VectorMatrix,
    private readonly approximateAbove: number,
  ) {
    this.plain = matrix;
  }

  get matrix(): VectorMatrix {
    return this.indexed?.matrix ?? (this.plain as VectorMatrix);
  }

  /** Whether searches go through an index (benchmarks wait for it). */
  get approximate(): boolean {
    return this.indexed !== undefined;
  }

  adopt(built: IndexedMatrix | undefined): void {
    if (built === undefined) return;
    this.indexed = built;
    // The list-ordered copy answers exact searches too: the original can go.
    this.plain = undefined;
  }

  search(filters: SearchFilters, unit: Float32Array, limit: number): VectorHit[] {
    const indexed = this.indexed;
    if (indexed === undefined) return this.matrix.search(filters, unit, limit);
    return indexed.matrix.search(filters, unit, limit, {
      index: indexed.index,
      above: this.approximateAbove,
    });
  }
}

export class VectorCache {
  private held: HeldVectors | undefined;
  /** Bumped by every install and by close: a build for an older generation is dropped. */
  private generation = 0;
  private loading: { readonly key: string; readonly done: Promise<HeldVectors> } | undefined;

  constructor(private readonly options: VectorIndexOptions) {}

  /** What is held, if it is the matrix of `space` at `epoch`. */
  current(epoch: number, space: EmbeddingSpace): HeldVectors | undefined {
    const m = this.held?.matrix;
    return m?.epoch === epoch && m.space.model === space.model && m.space.dimensions === space.dimensions
      ? this.held
      : undefined;
  }

  /** Replaces what is held with `matrix`, and starts its index when it is large enough. */
  install(matrix: VectorMatrix): HeldVectors {
    this.generation += 1;
    const held = new HeldVectors(matrix, this.options.approximateAbove);
    this.held = held;
    if (matrix.size < this.options.approximateAbove) return held;
    if (this.options.build === 'inline') {
      held.adopt(runNow(indexMatrix(matrix)));
      return held;
    }
    const generation = this.generation;
    runInSlices(indexMatrix(matrix), SLICE_MS, () => generation !== this.generation)
      .then((built) => held.adopt(built))
      // A failed build leaves exact search in place; the next reload tries again.
      .catch(() => undefined);
    return held;
  }

  /** Loads and installs the matrix of `space` at `epoch` once, however many searches ask for it
   * at the same time (loading 100k vectors from PostgreSQL takes a while). */
  load(epoch: number, space: EmbeddingSpace, loader: () => Promise<VectorMatrix>): Promise<HeldVectors> {
    const key = `${epoch}\u0000${space.model}\u0000${space.dimensions}`;
    if (this.loading?.key === key) return this.loading.done;
    const done = loader().then(
      (matrix) => {
        if (this.loading?.key === key) this.loading = undefined;
        // An older load finishing after a newer one began answers its own searches only.
        return this.loading === undefined ? this.install(matrix) : new HeldVectors(matrix, Infinity);
      },
      (error: unknown) => {
        if (this.loading?.key === key) this.loading = undefined;
        throw error;
      },
    );
    this.loading = { key, done };
    return done;
  }

  /** Drops what is held and stops a build in progress. */
  close(): void {
    this.generation += 1;
    this.held = undefined;
  }
}

/** The caches of one store, one per workspace. */
export class VectorCaches {
  private readonly caches = new Map<string, VectorCache>();

  constructor(private readonly options: VectorIndexOptions = DEFAULT_VECTOR_INDEX) {}

  of(workspaceId: string): VectorCache {
    let cache = this.caches.get(workspaceId);
    if (cache === undefined) {
      cache = new VectorCache(this.options);
      this.caches.set(workspaceId, cache);
    }
    return cache;
  }

  close(): void {
    for (const cache of this.caches.values()) cache.close();
    this.caches.clear();
  }
}
