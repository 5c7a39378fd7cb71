// Vector arithmetic shared by the KnowledgeStore implementations (issue 22): vectors are checked and
// L2-normalised once, when stored, so cosine similarity at search time is a plain dot product; and a
// bounded top-k keeps brute-force ranking at O(n log k) with one total order (similarity, then id).
import type { EmbeddingSpace, VectorHit } from './knowledge-store.js';

/** A unit-length copy of `vector`, or a RangeError when it cannot be one of `space`. */
export function unitVector(vector: Float32Array, space: EmbeddingSpace): Float32Array {
  if (vector.length !== space.dimensions)
    throw new RangeError(`vector has ${vector.length} dimensions, the space has ${space.dimensions}`);
  let norm = 0;
  for (const value of vector) {
    if (!Number.isFinite(value)) throw new RangeError('vector has a value that is not finite');
    norm += value * value;
  }
  if (norm === 0) throw new RangeError('vector is all zeros');
  const scale = 1 / Math.sqrt(norm);
  return vector.map((value) => value * scale);
}

/** The bytes of a float32 vector (the platform's byte order: little-endian on every supported CPU). */
export function vectorBytes(vector: Float32Array): Uint8Array {
  return new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength);
}

/** Dot product of `dims` floats of `a` from `aBase` with `b` from `bBase`; four accumulators
 * (measured ~1.5x a plain loop). Every ranking and clustering step uses this one function, so an
 * approximate search re-scores a row to exactly the similarity the exact search gives it. */
export function dotAt(a: Float32Array, aBase: number, b: Float32Array, bBase: number, dims: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let j = 0;
  for (; j + 3 < dims; j += 4) {
    s0 += (a[aBase + j] as number) * (b[bBase + j] as number);
    s1 += (a[aBase + j + 1] as number) * (b[bBase + j + 1] as number);
    s2 += (a[aBase + j + 2] as number) * (b[bBase + j + 2] as number);
    s3 += (a[aBase + j + 3] as number) * (b[bBase + j + 3] as number);
  }
  let sum = s0 + s1 + s2 + s3;
  for (; j < dims; j += 1) sum += (a[aBase + j] as number) * (b[bBase + j] as number);
  return sum;
}

/** Whether `a` ranks before `b`: higher similarity first, then (docId, chunkNo). */
function before(a: VectorHit, b: VectorHit): boolean {
  if (a.similarity !== b.similarity) return a.similarity > b.similarity;
  if (a.docId !== b.docId) return a.docId < b.docId;
  return a.chunkNo < b.chunkNo;
}

/** The best `limit` hits offered, as a binary min-heap whose root is the worst one kept. */
export class TopHits {
  private readonly heap: VectorHit[] = [];

  constructor(private readonly limit: number) {}

  /** Whether a hit with this similarity could still enter (cheap pre-check before building it). */
  admits(similarity: number): boolean {
    const worst = this.heap[0];
    return this.heap.length < this.limit || worst === undefined || similarity >= worst.similarity;
  }

  offer(hit: VectorHit): void {
    if (this.limit <= 0) return;
    const heap = this.heap;
    if (heap.length < this.limit) {
      heap.push(hit);
      this.up(heap.length - 1);
    } else if (before(hit, heap[0] as VectorHit)) {
      heap[0] = hit;
      this.down(0);
    }
  }

  sorted(): VectorHit[] {
    return [...this.heap].sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0));
  }

  private up(index: number): void {
    const heap = this.heap;
    let i = index;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(heap[parent] as VectorHit, heap[i] as VectorHit)) break;
      [heap[parent], heap[i]] = [heap[i] as VectorHit, heap[parent] as VectorHit];
      i = parent;
    }
  }

  private down(index: number): void {
    const heap = this.heap;
    let i = index;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let worst = i;
      if (left < heap.length && before(heap[worst] as VectorHit, heap[left] as VectorHit)) worst = left;
      if (right < heap.length && before(heap[worst] as VectorHit, heap[right] as VectorHit)) worst = right;
      if (worst === i) return;
      [heap[worst], heap[i]] = [heap[i] as VectorHit, heap[worst] as VectorHit];
      i = worst;
    }
  }
}
