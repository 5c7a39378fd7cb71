// Config hot reload (D10): every new config in use reaches the parts that hold per-config state (the
// discovery cache's local copies, upstream connections, the catalog, knowledge sync, the tool
// indexer, the usage-hint tokenizer), and the config in use at start is applied once here.
import type { ConfigSource, GatewayConfig } from '../config/index.js';
import type { CachedToolList, DiscoveryCache, ToolCatalog } from '../discovery/index.js';
import type { SyncEngine } from '../knowledge/index.js';
import { loadTokenizer } from '../rest/usage-header.js';
import type { ToolIndexer } from '../tool-search/index.js';
import type { UpstreamPool } from '../upstream/index.js';

/** The usage-hint tokenizer loads only once a config turns usage hints on (issue 26). */
function preloadTokenizer(config: GatewayConfig): void {
  if (config.knowledge.usageHints) void loadTokenizer();
}

/** Returns the unsubscribe the shutdown calls. */
export function followConfig(parts: {
  readonly config: ConfigSource;
  readonly cache: DiscoveryCache<CachedToolList>;
  readonly pool: UpstreamPool;
  readonly catalog: ToolCatalog;
  readonly sync: SyncEngine;
  readonly toolIndexer: ToolIndexer;
}): () => void {
  const { config, cache, pool, catalog, sync, toolIndexer } = parts;
  // Subscribed only now that everything it touches exists: a change can land while the knowledge
  // store connects (PostgreSQL, seconds), and the one that did before reached a sync engine not yet
  // made. What changed meanwhile is caught up on here; the sync runs once the gateway is ready.
  const unsubscribe = config.subscribe((snapshot) => {
    cache.dropLocal();
    pool.retain(snapshot.config);
    catalog.retain(snapshot.config);
    sync.schedule(snapshot.config);
    toolIndexer.configure();
    preloadTokenizer(snapshot.config);
  });
  cache.dropLocal();
  pool.retain(config.current().config);
  preloadTokenizer(config.current().config);
  return unsubscribe;
}
