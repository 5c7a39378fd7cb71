// What the rest of the gateway asks of the reach policy, per workspace: the network guard its
// sources connect through and the bounds of its files sources. Without a policy (the embedded file
// with no `policy:` block; its author is the admin) nothing is bounded and both answers are
// undefined, so the embedded default keeps its direct, unguarded paths.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { TenantPolicy, WorkspaceConfig } from '../config/index.js';
import { NetworkGuard, type Resolver } from './network-guard.js';
import type { ReachPolicy } from './reach-policy.js';
import { type OwnAddresses, type ReachScope } from './reach-policy.js';

export class TenantReach {
  private readonly guards = new Map<string, NetworkGuard>();

  constructor(
    readonly policy: ReachPolicy | undefined,
    private readonly resolver?: Resolver,
  ) {}

  static scopeOf(workspace: Pick<WorkspaceConfig, 'name' | 'namespace'>): ReachScope {
    return { namespace: workspace.namespace ?? workspace.name, workspace: workspace.name };
  }

  /** The checked network path of a workspace's sources, or undefined when nothing is bounded. */
  guard(workspace: Pick<WorkspaceConfig, 'name' | 'namespace'>): NetworkGuard | undefined {
    if (this.policy === undefined) return undefined;
    const scope = TenantReach.scopeOf(workspace);
    const key = `${scope.namespace}/${scope.workspace}`;
    let guard = this.guards.get(key);
    if (guard === undefined) {
      guard = new NetworkGuard(this.policy, scope, this.resolver);
      this.guards.set(key, guard);
    }
    return guard;
  }

  /** The bounds of a workspace's files sources, or undefined when nothing is bounded. */
  fileBounds(
    workspace: Pick<WorkspaceConfig, 'name' | 'namespace'>,
  ): { readonly policy: ReachPolicy; readonly scope: ReachScope } | undefined {
    return this.policy === undefined
      ? undefined
      : { policy: this.policy, scope: TenantReach.scopeOf(workspace) };
  }

  async close(): Promise<void> {
    const guards = [...this.guards.values()];
    this.guards.clear();
    await Promise.all(guards.map((g) => g.close()));
  }
}

/** This process's interface addresses and the API server's (by name or literal), for the built-in
 * deny list: a tenant must not reach the gateway itself or the control plane. */
export async function discoverOwnAddresses(apiServerUrl: string | undefined): Promise<OwnAddresses> {
  const gateway = Object.values(networkInterfaces())
    .flatMap((list) => list ?? [])
    .map((info) => info.address);
  const apiServer: string[] = [];
  if (apiServerUrl !== undefined) {
    try {
      const host = new URL(apiServerUrl).hostname.replace(/^\[|\]$/g, '');
      if (isIP(host) !== 0) apiServer.push(host);
      else apiServer.push(...(await lookup(host, { all: true })).map((a) => a.address));
    } catch {
      // An API server we cannot resolve now is still behind the admin's denyCidrs.
    }
  }
  return { gateway, apiServer };
}

/** The policy in force: the configured one; with Kubernetes, the defaults when none is configured. */
export function effectivePolicy(
  configured: TenantPolicy | undefined,
  kubernetes: boolean,
  fallback: TenantPolicy,
): TenantPolicy | undefined {
  return configured ?? (kubernetes ? fallback : undefined);
}
