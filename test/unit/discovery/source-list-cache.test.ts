// Resource and prompt lists in the discovery cache: the upstream's ttlMs is honoured (0 = never
// reused, none = the default), one fetch for concurrent cold readers, kinds and tool lists never
// confused, and invalidating a source drops its lists.
import { describe, expect, it } from 'vitest';
import type { McpSourceConfig } from '../../../gateway/config/index.js';
import { MemoryDiscoveryCache } from '../../../gateway/discovery/discovery-cache.js';
import type { DiscoveryEntry } from '../../../gateway/discovery/discovery-entry.js';
import { SourceListCache } from '../../../gateway/discovery/source-list-cache.js';
import { sourceCacheKey, sourceCachePrefix } from '../../../gateway/discovery/cache-key.js';
import type { ItemList } from '../../../gateway/upstream/index.js';

const source = {
  name: 'up',
  transport: 'streamable-http',
  url: 'http://127.0.0.1:1/mcp',
  timeouts: { connectMs: 1000, listMs: 1000, callMs: 1000 },
} as unknown as McpSourceConfig;

function setup() {
  let now = 1_000;
  const cache = new MemoryDiscoveryCache<DiscoveryEntry>(() => now);
  const lists = new SourceListCache(cache, 30_000);
  let fetches = 0;
  const fetcher =
    (ttlMs: number | undefined, name = 'r1') =>
    () => {
      fetches += 1;
      return Promise.resolve<ItemList>({ items: [{ uri: `demo://${name}`, name }], ttlMs });
    };
  return {
    cache,
    lists,
    fetcher,
    fetches: () => fetches,
    advance: (ms: number) => (now += ms),
  };
}

describe('SourceListCache', () => {
  it('discovery:list-ttl — reuses a list for the upstream ttlMs, then fetches again', async () => {
    const t = setup();
    expect(await t.lists.list('ws', source, 'resources', t.fetcher(5_000))).toEqual([
      { uri: 'demo://r1', name: 'r1' },
    ]);
    await t.lists.list('ws', source, 'resources', t.fetcher(5_000));
    expect(t.fetches()).toBe(1);
    t.advance(5_001);
    await t.lists.list('ws', source, 'resources', t.fetcher(5_000));
    expect(t.fetches()).toBe(2);
  });

  it('discovery:list-ttl — ttlMs 0 is fetched every time; no hint uses the default lifetime', async () => {
    const t = setup();
    await t.lists.list('ws', source, 'prompts', t.fetcher(0));
    await t.lists.list('ws', source, 'prompts', t.fetcher(0));
    expect(t.fetches()).toBe(2);
    await t.lists.list('ws', source, 'resources', t.fetcher(undefined));
    t.advance(29_000);
    await t.lists.list('ws', source, 'resources', t.fetcher(undefined));
    expect(t.fetches()).toBe(3);
    t.advance(1_001);
    await t.lists.list('ws', source, 'resources', t.fetcher(undefined));
    expect(t.fetches()).toBe(4);
  });

  it('discovery:list-ttl — concurrent cold readers fetch once; kinds and tool lists stay apart; invalidation drops them', async () => {
    const t = setup();
    await t.cache.set(sourceCacheKey('ws', source), { tools: [], expiresAt: 1e12 }, 60_000);
    const results = await Promise.all(
      Array.from({ length: 5 }, () => t.lists.list('ws', source, 'resources', t.fetcher(60_000))),
    );
    expect(t.fetches()).toBe(1);
    for (const items of results) expect(items).toEqual([{ uri: 'demo://r1', name: 'r1' }]);
    expect(await t.lists.list('ws', source, 'prompts', t.fetcher(60_000, 'p1'))).toEqual([
      { uri: 'demo://p1', name: 'p1' },
    ]);
    expect(t.fetches()).toBe(2);
    expect(await t.cache.get(sourceCacheKey('ws', source))).toEqual({ tools: [], expiresAt: 1e12 });
    await t.cache.invalidate(sourceCachePrefix('ws', 'up'));
    await t.lists.list('ws', source, 'resources', t.fetcher(60_000));
    expect(t.fetches()).toBe(3);
  });
});
