// The tenant reach policy in force (D19), opened once at start, and how the other parts ask it
// about one workspace: the network guard and file bounds of the workspace's name and namespace as
// the config has them now.
import type { Logger as PinoLogger } from 'pino';
import { DEFAULT_TENANT_POLICY, type ConfigSource } from '../config/index.js';
import { ReachPolicy, TenantReach, discoverOwnAddresses, effectivePolicy } from '../reach/index.js';

/** The config's `policy`; with --kubernetes the defaults when it has none; nothing bounded in the
 * embedded file without one. A change to it takes effect at the next start (it is only logged). */
export async function openTenantReach(
  config: ConfigSource,
  kubernetes: boolean,
  apiServer: string | undefined,
  logger: PinoLogger,
): Promise<TenantReach> {
  const configured = config.current().config.policy;
  const policy = effectivePolicy(configured, kubernetes, DEFAULT_TENANT_POLICY);
  if (policy === undefined) return new TenantReach(undefined);
  const own = await discoverOwnAddresses(apiServer);
  logger.info(
    {
      policy: configured === undefined ? 'default' : 'configured',
      fileRoots: policy.files.allowedRoots.length,
      denyCidrs: policy.network.denyCidrs.length,
      defaultAction: policy.network.defaultAction,
      stdio: policy.stdio,
    },
    'tenant reach policy in force',
  );
  const started = JSON.stringify(configured ?? null);
  config.subscribe((snapshot) => {
    if (JSON.stringify(snapshot.config.policy ?? null) !== started)
      logger.warn(
        {},
        'the tenant reach policy changed in the config; it takes effect when the gateway restarts',
      );
  });
  return new TenantReach(new ReachPolicy(policy, own));
}

/** The workspace's name and namespace as the config has them now. */
export function workspaceScope(
  config: ConfigSource,
  workspace: string,
): { name: string; namespace?: string } {
  const found = config.current().config.workspaces.find((w) => w.name === workspace);
  return found?.namespace === undefined
    ? { name: workspace }
    : { name: workspace, namespace: found.namespace };
}

/** A connector's reach options: the workspace's network guard and file bounds, where it has them. */
export function reachOf(reach: TenantReach, workspace: { name: string; namespace?: string }) {
  const network = reach.guard(workspace);
  const files = reach.fileBounds(workspace);
  return { ...(network === undefined ? {} : { network }), ...(files === undefined ? {} : { files }) };
}
