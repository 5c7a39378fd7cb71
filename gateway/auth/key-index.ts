// An index from key id to stored record, built once per config snapshot and cached by identity so
// a hot reload (a new frozen config object) rebuilds it and in-flight requests keep the old one.
import type { ApiKeyConfig, GatewayConfig, WorkspaceConfig } from '../config/index.js';

export interface IndexedKey {
  readonly key: ApiKeyConfig;
  readonly workspace: WorkspaceConfig;
  readonly hash: Buffer;
}

const cache = new WeakMap<GatewayConfig, ReadonlyMap<string, IndexedKey>>();

export function keyIndexFor(config: GatewayConfig): ReadonlyMap<string, IndexedKey> {
  let index = cache.get(config);
  if (index === undefined) {
    const map = new Map<string, IndexedKey>();
    for (const workspace of config.workspaces) {
      for (const key of workspace.keys) {
        map.set(key.id, { key, workspace, hash: Buffer.from(key.hash.slice('sha256:'.length), 'hex') });
      }
    }
    index = map;
    cache.set(config, index);
  }
  return index;
}
