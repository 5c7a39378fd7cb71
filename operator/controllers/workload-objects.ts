// The objects of the MCP servers a workspace's McpSources run (issue 40, D25), in their tenant
// namespace: the bearer token each stdio server's bridge checks (minted once, 256 random bits, kept
// in an owned Secret across reconciles, never logged), and the Deployment, Service and
// NetworkPolicy of each rendered plan, applied only when the content hash on the cached Deployment
// differs. Everything of a source that is no longer rendered (refused, deleted, moved to url) is
// deleted: a workload the policy refuses must not keep running, and no cluster is assumed to GC.
import { randomBytes } from 'node:crypto';
import { MANAGED_BY_LABEL, MANAGED_BY_VALUE } from '../../gateway/config/kube/index.js';
import type { KubeWriter, WorkloadKind, WorkloadObject } from '../kube/kube-writer.js';
import { decoded, type ControllerCaches, type Resource, type WorkloadRef } from './controller-caches.js';
import type { McpSourceView } from './plan/resource-views.js';
import {
  planRun,
  tokenSecretName,
  workloadName,
  type RunPlan,
  type WorkloadContext,
} from './plan/workload-plan.js';
import {
  ownerReferences,
  renderWorkload,
  SOURCE_LABEL,
  SOURCE_WORKSPACE_LABEL,
  TOKEN_KEY,
  WORKLOAD_HASH_ANNOTATION,
} from './plan/workload-render.js';

export interface WorkloadObjectsDeps {
  readonly caches: ControllerCaches;
  readonly writer: KubeWriter;
}

const KINDS: readonly WorkloadKind[] = ['Deployment', 'Service', 'NetworkPolicy'];

export class WorkloadObjects {
  /** Tokens written but not yet seen in the cache (`<namespace>/<source>`), so a reconcile that
   * runs before the watch event does not mint a second one. */
  private readonly minted = new Map<string, string>();

  constructor(private readonly deps: WorkloadObjectsDeps) {}

  /** The token of every run source the policy admits (stdio and HTTP images: the bridge checks it in
   * both), minting (and writing) missing ones. */
  async tokens(
    namespace: string,
    sources: readonly Resource<McpSourceView['spec']>[],
    context: WorkloadContext,
  ): Promise<ReadonlyMap<string, string>> {
    const tokens = new Map<string, string>();
    for (const source of sources) {
      const run = source.spec.run;
      if (run === undefined) continue;
      const plan = planRun(source, run, context);
      if ('ready' in plan) continue;
      const name = source.metadata.name;
      const key = `${namespace}/${name}`;
      const secret = this.deps.caches.secret(namespace, tokenSecretName(name));
      const cached =
        secret?.metadata?.labels?.[SOURCE_LABEL] === name ? decoded(secret, TOKEN_KEY) : undefined;
      if (cached !== undefined && cached !== '') {
        this.minted.delete(key);
        tokens.set(name, cached);
        continue;
      }
      let token = this.minted.get(key);
      if (token === undefined) {
        token = randomBytes(32).toString('base64url');
        await this.deps.writer.apply({
          kind: 'Secret',
          name: tokenSecretName(name),
          namespace,
          labels: {
            [MANAGED_BY_LABEL]: MANAGED_BY_VALUE,
            [SOURCE_LABEL]: name,
            [SOURCE_WORKSPACE_LABEL]: plan.workspace,
          },
          annotations: {},
          data: { [TOKEN_KEY]: token },
          ownerReferences: ownerReferences(plan),
        });
        this.minted.set(key, token);
      }
      tokens.set(name, token);
    }
    return tokens;
  }

  /** Applies the objects of each plan whose rendered content changed (Deployment last: its hash
   * says all three were written). */
  async write(plans: ReadonlyMap<string, RunPlan>): Promise<void> {
    for (const plan of plans.values()) {
      const rendered = renderWorkload(plan);
      const current = this.deployment(plan.namespace, workloadName(plan.source));
      if (current?.annotations[WORKLOAD_HASH_ANNOTATION] === rendered.hash) continue;
      for (const object of [rendered.service, rendered.networkPolicy, rendered.deployment])
        await this.deps.writer.applyWorkload(object as unknown as WorkloadObject);
    }
  }

  /** Deletes the workloads of `workspace` in `namespace` whose source is not in `keep`, and the
   * token Secrets of `sources` not in `keep` (a refused or url source keeps no token). */
  async removeAllBut(
    namespace: string,
    workspace: string,
    keep: ReadonlySet<string>,
    sources: readonly string[] = [],
  ): Promise<void> {
    const gone = new Set<string>();
    for (const ref of this.list(namespace))
      if (ref.labels[SOURCE_WORKSPACE_LABEL] === workspace) {
        const source = ref.labels[SOURCE_LABEL];
        if (source !== undefined && !keep.has(source)) gone.add(source);
      }
    for (const source of sources) if (!keep.has(source) && this.ownToken(namespace, source)) gone.add(source);
    for (const source of gone) await this.remove(namespace, source);
  }

  /** Deletes workloads whose workspace key (`<namespace>/<workspace>`) is not live. */
  async removeOrphans(live: ReadonlySet<string>): Promise<void> {
    for (const ref of this.list(undefined)) {
      const workspace = ref.labels[SOURCE_WORKSPACE_LABEL];
      const source = ref.labels[SOURCE_LABEL];
      if (workspace === undefined || source === undefined) continue;
      if (!live.has(`${ref.namespace}/${workspace}`)) await this.remove(ref.namespace, source);
    }
  }

  /** `ready/desired` replicas of the source's Deployment as last observed, or undefined. */
  status(namespace: string, source: string): string | undefined {
    const ref = this.deployment(namespace, workloadName(source));
    return ref === undefined ? undefined : `${ref.readyReplicas}/${ref.desiredReplicas}`;
  }

  private async remove(namespace: string, source: string): Promise<void> {
    for (const kind of KINDS) await this.deps.writer.removeWorkload(kind, namespace, workloadName(source));
    if (this.ownToken(namespace, source))
      await this.deps.writer.remove('Secret', namespace, tokenSecretName(source));
    this.minted.delete(`${namespace}/${source}`);
  }

  private ownToken(namespace: string, source: string): boolean {
    const secret = this.deps.caches.secret(namespace, tokenSecretName(source));
    return secret?.metadata?.labels?.[SOURCE_LABEL] === source;
  }

  private list(namespace: string | undefined): readonly WorkloadRef[] {
    return this.deps.caches.workloads?.(namespace) ?? [];
  }

  private deployment(namespace: string, name: string): WorkloadRef | undefined {
    return this.list(namespace).find((ref) => ref.name === name);
  }
}
