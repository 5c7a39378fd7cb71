// Keys and lifetimes of the discovery cache. A source's lists are keyed by workspace, source name and
// the fingerprint of its connection settings (URL, transport, credential reference), so a config
// change never serves a list fetched with other settings; `<workspace>/<source>/` prefixes them all.
import type { McpSourceConfig } from '../config/index.js';
import { UpstreamPool } from '../upstream/index.js';

/** The longest any upstream list is kept, whatever the upstream says. */
export const MAX_LIST_TTL_MS = 24 * 60 * 60 * 1000;

export function sourceCacheKey(workspace: string, source: McpSourceConfig): string {
  return `${workspace}/${source.name}/${UpstreamPool.fingerprint(source)}`;
}

/** The prefix of every cached list of one source (for invalidation). */
export function sourceCachePrefix(workspace: string, sourceName: string): string {
  return `${workspace}/${sourceName}/`;
}
