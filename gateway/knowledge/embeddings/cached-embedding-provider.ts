// A decorator that asks its provider only for texts it has not embedded before under the same model
// and dimensions (issue 22); repeated texts within one call are sent once. Callers get copies, so
// changing a returned vector cannot change the cache.
import { EmbeddingCache } from './embedding-cache.js';
import type { EmbeddingProvider } from './embedding-provider.js';

export class CachedEmbeddingProvider implements EmbeddingProvider {
  constructor(
    private readonly inner: EmbeddingProvider,
    readonly cache: EmbeddingCache,
  ) {}

  get model(): string {
    return this.inner.model;
  }

  get dimensions(): number | undefined {
    return this.inner.dimensions;
  }

  async embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const keys = texts.map((text) => EmbeddingCache.key(this.model, this.dimensions, text));
    // Hits are taken now, so a miss stored later in this call cannot evict them before we answer.
    const found = new Map<string, Float32Array>();
    const missing = new Map<string, string>();
    keys.forEach((key, i) => {
      if (found.has(key) || missing.has(key)) return;
      const hit = this.cache.get(key);
      if (hit === undefined) missing.set(key, texts[i] as string);
      else found.set(key, hit);
    });
    if (missing.size > 0) {
      const vectors = await this.inner.embed([...missing.values()], signal);
      [...missing.keys()].forEach((key, i) => {
        const vector = vectors[i] as Float32Array;
        this.cache.set(key, vector);
        found.set(key, vector);
      });
    }
    return keys.map((key) => (found.get(key) as Float32Array).slice());
  }
}
