// One workspace's vectors of one space held in memory as a single contiguous float32 matrix (issue
// 22): reading 100k BLOBs out of SQLite costs ~0.9 s per query (a buffer per row), while a dot
// product over one Float32Array is tens of milliseconds. Both stores keep one matrix per workspace
// (vector-cache.ts) and reload it when the workspace's vector epoch moved (any process's write bumps
// it). Above a size threshold an IVF index over the matrix (ivf-index.ts) narrows the rows scored.
import type { IndexedRows, IvfIndex } from './ivf-index.js';
import type { EmbeddingSpace, SearchFilters, VectorHit } from './knowledge-store.js';
import { dotAt, TopHits } from './vector-math.js';

export interface MatrixRow {
  readonly docId: string;
  readonly chunkNo: number;
  readonly sourceId: string;
  readonly sourceType: string;
  /** A unit-length vector's float32 bytes. */
  readonly bytes: Uint8Array;
}

export class VectorMatrix implements IndexedRows {
  private readonly docIds: string[] = [];
  private readonly chunkNos: number[] = [];
  /** Index into `sources` per row: filters are decided once per source, not once per row. */
  private readonly sourceOf: Uint32Array;
  private readonly sources: { id: string; type: string; rows: number }[] = [];
  readonly data: Float32Array;
  readonly dims: number;

  constructor(
    readonly space: EmbeddingSpace,
    readonly epoch: number,
    rows: Iterable<MatrixRow>,
    count: number,
  ) {
    const dims = space.dimensions;
    this.dims = dims;
    this.data = new Float32Array(count * dims);
    this.sourceOf = new Uint32Array(count);
    const sourceIndex = new Map<string, number>();
    let i = 0;
    for (const row of rows) {
      if (i >= count) break;
      const key = `${row.sourceId}\u0000${row.sourceType}`;
      let index = sourceIndex.get(key);
      if (index === undefined) {
        index = this.sources.length;
        sourceIndex.set(key, index);
        this.sources.push({ id: row.sourceId, type: row.sourceType, rows: 0 });
      }
      (this.sources[index] as { rows: number }).rows += 1;
      this.docIds.push(row.docId);
      this.chunkNos.push(row.chunkNo);
      this.sourceOf[i] = index;
      // Copied byte-wise into place: the row's buffer need not be 4-byte aligned.
      new Uint8Array(this.data.buffer, i * dims * 4, dims * 4).set(row.bytes.subarray(0, dims * 4));
      i += 1;
    }
  }

  get size(): number {
    return this.docIds.length;
  }

  /** A copy with the rows in `order`, yielding every few hundred rows (150 MB at 100k × 384 is
   * ~0.1 s to copy: too long for one event-loop turn). */
  static *reordered(source: VectorMatrix, order: Uint32Array): Generator<void, VectorMatrix> {
    const copy = new VectorMatrix(source.space, source.epoch, [], order.length);
    const dims = source.dims;
    for (const s of source.sources) copy.sources.push({ ...s });
    for (let i = 0; i < order.length; i += 1) {
      const row = order[i] as number;
      copy.docIds.push(source.docIds[row] as string);
      copy.chunkNos.push(source.chunkNos[row] as number);
      copy.sourceOf[i] = source.sourceOf[row] as number;
      copy.data.set(source.data.subarray(row * dims, (row + 1) * dims), i * dims);
      if (i % 512 === 511) yield;
    }
    return copy;
  }

  docIdOf(row: number): string {
    return this.docIds[row] as string;
  }

  chunkNoOf(row: number): number {
    return this.chunkNos[row] as number;
  }

  /** Top hits by dot product with a unit-length query (cosine), rows outside the filters skipped.
   * With an index, and at least `approximateAbove` rows passing the filters, only the rows of the
   * lists nearest the query are scored (exactly); otherwise every admitted row is. */
  search(
    filters: SearchFilters,
    unit: Float32Array,
    limit: number,
    approximate?: { readonly index: IvfIndex; readonly above: number },
  ): VectorHit[] {
    const allowed = new Set(filters.allowedSourceIds);
    const admitted = this.sources.map(
      (s) =>
        allowed.has(s.id) &&
        (filters.sourceId === undefined || s.id === filters.sourceId) &&
        (filters.sourceType === undefined || s.type === filters.sourceType),
    );
    const top = new TopHits(limit);
    const admittedRows = this.sources.reduce((n, s, i) => (admitted[i] === true ? n + s.rows : n), 0);
    if (approximate === undefined || admittedRows < approximate.above) {
      for (let row = 0; row < this.docIds.length; row += 1)
        if (admitted[this.sourceOf[row] as number] === true) this.score(row, unit, top);
      return top.sorted();
    }
    // Probe the index's share of lists, then on while the filters have admitted fewer rows than
    // that share of them would hold on average, or fewer than `limit` (a narrow filter probes more).
    const { index } = approximate;
    const enough = Math.ceil((index.probes / index.lists) * admittedRows);
    let scored = 0;
    let probed = 0;
    for (const l of index.probeOrder(unit)) {
      if (probed >= index.probes && scored >= enough && scored >= limit) break;
      for (let row = index.start(l); row < index.end(l); row += 1)
        if (admitted[this.sourceOf[row] as number] === true) {
          this.score(row, unit, top);
          scored += 1;
        }
      probed += 1;
    }
    return top.sorted();
  }

  private score(row: number, unit: Float32Array, top: TopHits): void {
    const sum = dotAt(this.data, row * this.dims, unit, 0, this.dims);
    if (top.admits(sum))
      top.offer({
        docId: this.docIds[row] as string,
        chunkNo: this.chunkNos[row] as number,
        similarity: sum,
      });
  }
}
