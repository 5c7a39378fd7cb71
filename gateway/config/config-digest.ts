// Which config a replica serves, as one number (issue 25): equal on every replica that serves the
// same config, so the `agw_config_digest` gauge shows replicas that disagree (AgentGatewayConfigSkew
// in docs/runbooks.md). The snapshot's revision cannot: it counts swaps per process, so replicas
// started at different times differ while serving the same config. In the Kubernetes shape the
// digest covers the operator's rendered revision of each workspace (the order in which workspaces
// arrived differs between replicas) and the base config; in file mode the validated config. The
// listening address is left out.
import { createHash } from 'node:crypto';
import type { ConfigSnapshot } from './config-source.js';

const digests = new WeakMap<ConfigSnapshot, number>();

/** 48 bits of SHA-256: exact as a float64 sample value, which is how PromQL's count_values prints it. */
export function configDigest(snapshot: ConfigSnapshot): number {
  const known = digests.get(snapshot);
  if (known !== undefined) return known;
  const revisions = snapshot.workspaceRevisions;
  // Where a replica listens is not what it serves (`serve --host/--port` override it per process).
  const served = {
    ...snapshot.config,
    server: { ...snapshot.config.server, host: undefined, port: undefined },
  };
  const text =
    revisions === undefined
      ? JSON.stringify(served)
      : JSON.stringify({
          base: { ...served, workspaces: undefined },
          revisions: [...revisions].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        });
  const digest = createHash('sha256').update(text).digest().readUIntBE(0, 6);
  digests.set(snapshot, digest);
  return digest;
}
