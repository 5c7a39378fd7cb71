// The content-hash cache decorator (issue 22) over the hashing twin: unchanged texts cost zero
// calls, a changed model or dimensions embeds again, the LRU bound holds, callers cannot corrupt it.
import { describe, expect, it } from 'vitest';
import {
  CachedEmbeddingProvider,
  EmbeddingCache,
  EmbeddingFailed,
  HashingEmbeddingProvider,
  hashingVector,
} from '../../../../gateway/knowledge/embeddings/index.js';

describe('CachedEmbeddingProvider', () => {
  it('knowledge:embeddings-cache — a second embed of unchanged texts makes zero calls', async () => {
    const twin = new HashingEmbeddingProvider({ dimensions: 16 });
    const cached = new CachedEmbeddingProvider(twin, new EmbeddingCache(100));
    const first = await cached.embed(['alpha', 'beta', 'gamma']);
    const again = await cached.embed(['gamma', 'alpha', 'beta']);
    expect(twin.calls).toEqual([['alpha', 'beta', 'gamma']]);
    expect(again.map((v) => [...v])).toEqual([first[2], first[0], first[1]].map((v) => [...(v ?? [])]));
    // Only what changed is sent.
    await cached.embed(['alpha', 'delta']);
    expect(twin.calls[1]).toEqual(['delta']);
    expect(cached.model).toBe(twin.model);
    expect(cached.dimensions).toBe(16);
  });

  it('knowledge:embeddings-cache — repeated texts in one call are embedded once, answered in place', async () => {
    const twin = new HashingEmbeddingProvider({ dimensions: 8 });
    const vectors = await new CachedEmbeddingProvider(twin, new EmbeddingCache(100)).embed(['a', 'b', 'a']);
    expect(twin.calls).toEqual([['a', 'b']]);
    expect([...(vectors[2] ?? [])]).toEqual([...hashingVector('a', 8)]);
  });

  it('knowledge:embeddings-cache — embeds again when the model or the dimensions change', async () => {
    const cache = new EmbeddingCache(100);
    const base = new HashingEmbeddingProvider({ model: 'm1', dimensions: 8 });
    const otherModel = new HashingEmbeddingProvider({ model: 'm2', dimensions: 8 });
    const otherDims = new HashingEmbeddingProvider({ model: 'm1', dimensions: 12 });
    for (const inner of [base, otherModel, otherDims, base])
      await new CachedEmbeddingProvider(inner, cache).embed(['same text']);
    expect(base.calls).toHaveLength(1);
    expect(otherModel.calls).toHaveLength(1);
    expect(otherDims.calls).toHaveLength(1);
    expect(cache.size).toBe(3);
  });

  it('knowledge:embeddings-cache — keeps at most maxEntries, dropping the least recently used', async () => {
    const twin = new HashingEmbeddingProvider();
    const cached = new CachedEmbeddingProvider(twin, new EmbeddingCache(2));
    await cached.embed(['a', 'b']);
    await cached.embed(['a']); // a is now the most recent
    await cached.embed(['c']); // evicts b
    expect(cached.cache.size).toBe(2);
    await cached.embed(['a', 'c']);
    expect(twin.calls).toHaveLength(2);
    await cached.embed(['b']);
    expect(twin.calls[2]).toEqual(['b']);
    // 0 turns the cache off.
    const off = new HashingEmbeddingProvider();
    const uncached = new CachedEmbeddingProvider(off, new EmbeddingCache(0));
    await uncached.embed(['a']);
    await uncached.embed(['a']);
    expect(off.calls).toHaveLength(2);
  });

  it('knowledge:embeddings-cache — a changed returned vector does not change the cache; failures store nothing', async () => {
    const twin = new HashingEmbeddingProvider({ dimensions: 8 });
    const cached = new CachedEmbeddingProvider(twin, new EmbeddingCache(10));
    const [first] = await cached.embed(['a']);
    first?.fill(0);
    const [again] = await cached.embed(['a']);
    expect([...(again ?? [])]).toEqual([...hashingVector('a', 8)]);
    const controller = new AbortController();
    controller.abort();
    await expect(cached.embed(['new'], controller.signal)).rejects.toBeInstanceOf(EmbeddingFailed);
    expect(cached.cache.size).toBe(1);
  });
});
