// resources/list, resources/templates/list and prompts/list of upstream sources, cached the way tool
// lists are (issue 10 item 1; templates since issue 24): in the same DiscoveryCache, under the
// source's key with a `#resources`/`#resourceTemplates`/`#prompts` suffix, so a refresh or an
// upstream list_changed drops them with the tools on every replica; for the upstream's `ttlMs` (the
// default when it gives none, never when it says 0); and with one lister per key across replicas.
// What a key may see is decided by the caller; entries are per source and credential context, never
// per key.
import type { McpSourceConfig } from '../config/index.js';
import type { ItemList } from '../upstream/index.js';
import type { DiscoveryCache } from './discovery-cache.js';
import { MAX_LIST_TTL_MS, sourceCacheKey } from './cache-key.js';
import type { CachedSourceList, DiscoveryEntry, ListKind } from './discovery-entry.js';

function asList(entry: DiscoveryEntry | undefined, kind: ListKind): CachedSourceList | undefined {
  return entry !== undefined && 'kind' in entry && entry.kind === kind ? entry : undefined;
}

export class SourceListCache {
  constructor(
    private readonly cache: DiscoveryCache<DiscoveryEntry>,
    /** Lifetime when the upstream gives no `ttlMs` (2025-era servers), as for tool lists. */
    private readonly defaultTtlMs: number,
  ) {}

  static key(workspace: string, source: McpSourceConfig, kind: ListKind): string {
    return `${sourceCacheKey(workspace, source)}#${kind}`;
  }

  /** The source's list from the cache, or from `fetch` (once across replicas for a cold key). */
  async list(
    workspace: string,
    source: McpSourceConfig,
    kind: ListKind,
    fetch: () => Promise<ItemList>,
  ): Promise<readonly Record<string, unknown>[]> {
    const key = SourceListCache.key(workspace, source, kind);
    const cached = asList(await this.cache.get(key), kind);
    if (cached !== undefined) return cached.items;
    let own: readonly Record<string, unknown>[] | undefined;
    await this.cache.exclusive(key, source.timeouts.listMs, async () => {
      if (asList(await this.cache.get(key), kind) !== undefined) return;
      own = await this.load(key, kind, fetch);
    });
    if (own !== undefined) return own;
    const shared = asList(await this.cache.get(key), kind);
    if (shared !== undefined) return shared.items;
    // Nothing cacheable came from the other lister (ttl 0, or it failed): list here.
    return this.load(key, kind, fetch);
  }

  private async load(
    key: string,
    kind: ListKind,
    fetch: () => Promise<ItemList>,
  ): Promise<readonly Record<string, unknown>[]> {
    const listed = await fetch();
    const lifetime = Math.max(0, Math.min(listed.ttlMs ?? this.defaultTtlMs, MAX_LIST_TTL_MS));
    await this.cache.set(key, { kind, items: listed.items }, lifetime);
    return listed.items;
  }
}
