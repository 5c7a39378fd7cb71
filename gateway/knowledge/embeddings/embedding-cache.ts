// The in-memory side of "never embed an unchanged chunk twice" (issue 22): vectors by (model,
// dimensions, sha256 of the text), bounded by a least-recently-used count. Shared across providers,
// so a changed model or dimensions misses and is embedded again. A persistent cache in the
// knowledge stores is a later step of the issue.
import { createHash } from 'node:crypto';

export class EmbeddingCache {
  private readonly entries = new Map<string, Float32Array>();

  constructor(readonly maxEntries: number) {}

  static key(model: string, dimensions: number | undefined, text: string): string {
    const digest = createHash('sha256').update(text).digest('base64url');
    return JSON.stringify([model, dimensions ?? null, digest]);
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string): Float32Array | undefined {
    const vector = this.entries.get(key);
    if (vector !== undefined) {
      // Map order is insertion order: moving a hit to the end makes the first entry the coldest.
      this.entries.delete(key);
      this.entries.set(key, vector);
    }
    return vector;
  }

  set(key: string, vector: Float32Array): void {
    if (this.maxEntries === 0) return;
    this.entries.delete(key);
    this.entries.set(key, vector);
    while (this.entries.size > this.maxEntries) {
      const coldest = this.entries.keys().next();
      if (coldest.done === true) break;
      this.entries.delete(coldest.value);
    }
  }

  clear(): void {
    this.entries.clear();
  }
}
