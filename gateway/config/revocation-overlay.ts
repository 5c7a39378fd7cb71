// Deny wins (issue 8 item 13): a revocation written to a config file takes effect even when the
// rest of that file is rejected. When a new version fails validation but still parses, the keys it
// marks `revoked: true` are revoked in the last good config, and nothing else of it is applied.
import { deepFreeze } from './config-loader.js';
import type { GatewayConfig } from './config-schema.js';

function records(value: unknown): Record<string, unknown>[] {
  if (!Array.isArray(value)) return [];
  return value.filter(
    (item): item is Record<string, unknown> =>
      typeof item === 'object' && item !== null && !Array.isArray(item),
  );
}

/** Every key id a raw (unvalidated) config document marks `revoked: true`. */
export function revokedKeyIds(document: unknown): Set<string> {
  const ids = new Set<string>();
  if (typeof document !== 'object' || document === null) return ids;
  for (const workspace of records((document as Record<string, unknown>)['workspaces'])) {
    for (const key of records(workspace['keys'])) {
      if (key['revoked'] === true && typeof key['id'] === 'string') ids.add(key['id']);
    }
  }
  return ids;
}

/** `config` with the given keys revoked, or undefined when none of them is active in it. */
export function applyRevocations(config: GatewayConfig, ids: ReadonlySet<string>): GatewayConfig | undefined {
  let changed = 0;
  const workspaces = config.workspaces.map((workspace) => ({
    ...workspace,
    keys: workspace.keys.map((key) => {
      if (key.revoked || !ids.has(key.id)) return key;
      changed += 1;
      return { ...key, revoked: true };
    }),
  }));
  return changed === 0 ? undefined : deepFreeze({ ...config, workspaces });
}
