// Reconciles one workspace (level-triggered, key `<namespace>/<name>`): issues the keys of its
// ApiKeys (key-secrets.ts), plans it (workspace-plan.ts), writes the rendered parts into the gateway
// namespace (rendered-objects.ts), and reports a Ready condition on every resource (status-reporter.ts).
// A deleted Workspace takes its rendered objects with it; so does a Workspace whose name is already
// taken by an older one in another namespace (names are global in the gateways). Reads come from
// informer caches (controller-caches.ts), writes go through the KubeWriter port.
import { DEFAULT_WORKLOAD_POLICY } from '../../gateway/config/index.js';
import { renderWorkspace } from '../../gateway/config/kube/index.js';
import type { ReachPolicy } from '../../gateway/reach/index.js';
import type { Logger } from '../../gateway/telemetry/logger.js';
import type { EventRecorder } from '../kube/event-recorder.js';
import type { KubeWriter } from '../kube/kube-writer.js';
import { decoded, type ControllerCaches, type Resource } from './controller-caches.js';
import { KeySecrets } from './key-secrets.js';
import { OpenApiDocuments } from './openapi-documents.js';
import type { PlanInput } from './plan/plan-input.js';
import type { NameResolver } from './plan/reach-check.js';
import type { ReadyCondition } from './plan/ready-condition.js';
import { RenderedObjects } from './rendered-objects.js';
import type { WorkspaceView } from './plan/resource-views.js';
import { PLURALS, StatusReporter } from './status-reporter.js';
import { planWorkspace, type WorkspacePlan } from './plan/workspace-plan.js';
import type { WorkloadContext, WorkloadSettings } from './plan/workload-plan.js';
import { WorkloadObjects } from './workload-objects.js';
import { workspaceReach } from './workspace-reach.js';

export type { ControllerCaches, RenderedRef, Resource, SecretObject } from './controller-caches.js';

export interface WorkspaceControllerDeps {
  readonly caches: ControllerCaches;
  readonly writer: KubeWriter;
  readonly gatewayNamespace: string;
  readonly logger: Logger;
  readonly now?: () => Date;
  /** The admin's tenant policy (D19, D24); absent: nothing is refused for where it reaches or trusts. */
  readonly policy?: ReachPolicy;
  /** Resolves the host names resources name before the policy decides them. */
  readonly resolver?: NameResolver;
  /** Where Events go; none are recorded without it. */
  readonly events?: EventRecorder;
  /** What rendering McpSource spec.run needs (D25); absent: stdio servers are refused
   * (BridgeNotConfigured) and ingress is admitted from no gateway pod. */
  readonly workloads?: WorkloadSettings;
  /** Runs the workspace's reconcile again after `delayMs` (the work queue's addAfter): when a
   * source with scaleToZero falls idle (D25). */
  readonly requeueAfter?: (key: string, delayMs: number) => void;
}

const NO_WORKLOAD_SETTINGS: WorkloadSettings = {
  bridgeImage: '',
  gatewayNamespace: '',
  gatewayPodLabels: {},
  clusterDomain: 'cluster.local',
};

function created(resource: Resource<unknown>): number {
  const stamp = resource.metadata.creationTimestamp;
  return stamp === undefined ? 0 : new Date(stamp).getTime();
}

export class WorkspaceController {
  private readonly status: StatusReporter;
  private readonly rendered: RenderedObjects;
  private readonly keys: KeySecrets;
  private readonly workloads: WorkloadObjects;
  private readonly openApi: OpenApiDocuments;

  constructor(private readonly deps: WorkspaceControllerDeps) {
    this.openApi = new OpenApiDocuments(deps.caches);
    this.status = new StatusReporter(deps);
    this.rendered = new RenderedObjects(deps);
    this.keys = new KeySecrets({ ...deps, status: this.status });
    this.workloads = new WorkloadObjects(deps);
  }

  /** The workspace key every resource of a namespace maps to. */
  static key(namespace: string, workspace: string): string {
    return `${namespace}/${workspace}`;
  }

  async reconcile(key: string): Promise<void> {
    const [namespace, name] = key.split('/') as [string, string];
    const { caches } = this.deps;
    const workspace = caches
      .workspaces()
      .find(
        (w) =>
          w.metadata.namespace === namespace &&
          w.metadata.name === name &&
          w.metadata.deletionTimestamp === undefined,
      );
    const belongs = <V extends { workspaceRef: { name: string } }>(r: Resource<V>) =>
      r.spec.workspaceRef?.name === name && r.metadata.deletionTimestamp === undefined;
    const apiKeys = caches.apiKeys(namespace).filter(belongs);
    const mcpSources = caches.mcpSources(namespace).filter(belongs);
    const dataSources = caches.dataSources(namespace).filter(belongs);
    const sourceNames = mcpSources.map((s) => s.metadata.name);
    if (workspace === undefined) {
      await this.rendered.remove(namespace, name);
      await this.workloads.removeAllBut(namespace, name, new Set(), sourceNames);
      await this.status.reportDependents(apiKeys, mcpSources, dataSources, {
        ready: false,
        reason: 'WorkspaceNotFound',
        message: `spec.workspaceRef.name: no Workspace ${name} in namespace ${namespace} (references stay in their own namespace)`,
      });
      return;
    }
    const owner = this.nameOwner(name);
    if (owner !== workspace) {
      await this.rendered.remove(namespace, name);
      await this.workloads.removeAllBut(namespace, name, new Set(), sourceNames);
      const conflict: ReadyCondition = {
        ready: false,
        reason: 'NameConflict',
        message: `a Workspace named ${name} already exists in namespace ${owner?.metadata.namespace ?? '?'}; workspace names are global`,
      };
      await this.status.setStatus(PLURALS.workspace, workspace, conflict);
      await this.status.reportDependents(apiKeys, mcpSources, dataSources, {
        ready: false,
        reason: 'WorkspaceNotReady',
        message: `spec.workspaceRef.name: Workspace ${name} in namespace ${namespace} is not served (${conflict.reason})`,
      });
      return;
    }

    const keys = await this.keys.issue(namespace, apiKeys);
    const reach = await workspaceReach(
      { caches, policy: this.deps.policy, resolver: this.deps.resolver },
      { namespace, workspace: name, spec: workspace.spec, mcpSources, dataSources },
    );
    const identityPolicy = this.deps.policy?.policy.identity;
    const workloadContext: Omit<WorkloadContext, 'readSecret'> = {
      settings: this.deps.workloads ?? NO_WORKLOAD_SETTINGS,
      policy: this.deps.policy?.policy.workloads ?? DEFAULT_WORKLOAD_POLICY,
      ...(this.deps.policy === undefined ? {} : { reach: this.deps.policy }),
      now: (this.deps.now ?? (() => new Date()))().getTime(),
    };
    const tokens = await this.workloads.tokens(namespace, mcpSources, {
      ...workloadContext,
      readSecret: this.secretReader(namespace),
    });
    const openApiDocuments = await this.openApi.read(namespace, mcpSources);
    const plan = planWorkspace({
      workloads: { context: workloadContext, tokens },
      openApiDocuments,
      ...(reach === undefined ? {} : { reach }),
      ...(identityPolicy === undefined ? {} : { identityPolicy }),
      workspace: { metadata: workspace.metadata, spec: workspace.spec ?? {} },
      apiKeys,
      keyMaterial: keys.material,
      mcpSources,
      dataSources,
      readSecret: this.secretReader(namespace),
    });

    let revision: string;
    try {
      const rendered = renderWorkspace(plan.render);
      revision = rendered.revision;
      // The servers first: the gateways learn of a Service that exists.
      await this.workloads.write(plan.workloads);
      await this.workloads.removeAllBut(namespace, name, new Set(plan.workloads.keys()), sourceNames);
      await this.rendered.write(namespace, name, rendered.parts, revision);
    } catch (error) {
      await this.status.setStatus(PLURALS.workspace, workspace, {
        ready: false,
        reason: 'RenderFailed',
        message: error instanceof Error ? error.message.slice(0, 500) : 'rendering failed',
      });
      throw error;
    }

    // A source that will fall idle is looked at again then (its replicas go to zero).
    const sleeps = [...plan.workloads.values()]
      .map((run) => run.scaleToZero?.sleepsInMs)
      .filter((ms): ms is number => ms !== undefined);
    if (sleeps.length > 0) this.deps.requeueAfter?.(key, Math.min(...sleeps) + 250);

    for (const apiKey of apiKeys) {
      const condition = plan.apiKeys.get(apiKey.metadata.name) as ReadyCondition;
      const material = keys.material.get(apiKey.metadata.name);
      const secret = keys.secrets.get(apiKey.metadata.name);
      await this.status.setStatus(PLURALS.apiKey, apiKey, condition, {
        ...(secret?.secretName === undefined ? {} : { secretName: secret.secretName }),
        ...(material !== undefined && 'id' in material ? { keyId: material.id } : {}),
        issuedRotation: secret?.rotation ?? 0,
      });
    }
    for (const source of mcpSources) {
      const workload = plan.workloads.has(source.metadata.name)
        ? this.workloads.status(namespace, source.metadata.name)
        : undefined;
      const openApi = plan.openApi.get(source.metadata.name);
      await this.status.setStatus(
        PLURALS.mcpSource,
        source,
        plan.mcpSources.get(source.metadata.name) as ReadyCondition,
        // ready/desired of its Deployment (Workload column); none for a source that runs nothing.
        // With transport openapi: what its document holds (issue 44).
        { workload: workload ?? null, openapi: openApi?.status ?? null },
        openApi === undefined ? [] : [openApi.accepted],
      );
    }
    for (const source of dataSources)
      await this.status.setStatus(
        PLURALS.dataSource,
        source,
        plan.dataSources.get(source.metadata.name) as ReadyCondition,
      );
    await this.status.setStatus(PLURALS.workspace, workspace, servedCondition(plan), {
      keys: plan.render.keys.length,
      sources: plan.render.mcpSources.length + plan.render.dataSources.length,
      revision,
      ...(plan.identity === undefined ? {} : { issuers: plan.identity.issuers }),
    });
  }

  /** Deletes rendered objects and key Secrets whose owner no longer exists (no GC in every cluster). */
  async sweepOrphans(): Promise<void> {
    const live = new Set(
      this.deps.caches
        .workspaces()
        .filter((w) => this.nameOwner(w.metadata.name) === w)
        .map((w) => WorkspaceController.key(w.metadata.namespace, w.metadata.name)),
    );
    await this.rendered.removeAllBut(live, (namespace, workspace) =>
      WorkspaceController.key(namespace, workspace),
    );
    await this.workloads.removeOrphans(live);
  }

  /** Deletes the key Secret of an ApiKey that is gone. */
  async removeKeySecret(namespace: string, apiKey: string): Promise<void> {
    await this.keys.remove(namespace, apiKey);
  }

  /** The Workspace that owns `name` across namespaces: the oldest, then by namespace. */
  private nameOwner(name: string): Resource<WorkspaceView['spec']> | undefined {
    return this.deps.caches
      .workspaces()
      .filter((w) => w.metadata.name === name && w.metadata.deletionTimestamp === undefined)
      .sort((a, b) => created(a) - created(b) || a.metadata.namespace.localeCompare(b.metadata.namespace))[0];
  }

  /** Secrets of the workspace's own namespace only (D16), from the caches. */
  private secretReader(namespace: string): PlanInput['readSecret'] {
    return (ref) => {
      const secret = this.deps.caches.secret(namespace, ref.name);
      if (secret === undefined) return { missing: 'secret' };
      const value = decoded(secret, ref.key);
      return value === undefined ? { missing: 'key' } : { value };
    };
  }
}

/** The Workspace's own Ready condition once it is rendered: served, with what of it is not. */
function servedCondition(plan: WorkspacePlan): ReadyCondition {
  const failing = [
    ...plan.mcpSources.values(),
    ...plan.dataSources.values(),
    ...plan.apiKeys.values(),
  ].filter((c) => !c.ready).length;
  // spec.identity not used is Ready=False (its reason, a Warning Event): OAuth callers are all
  // refused until it is fixed, unlike embeddings, which fall back to lexical search.
  const identity = plan.identity?.condition;
  const notes = [
    ...(failing === 0
      ? []
      : [`${failing} resource${failing === 1 ? '' : 's'} of it not ready (see their conditions)`]),
    ...(plan.embeddings === undefined || plan.embeddings.ready
      ? []
      : [`spec.embeddings not used (lexical search only): ${plan.embeddings.message}`]),
    // A hook that cannot work still guards: it fails by its own failure policy (guardrails-plan.ts).
    ...(plan.governance?.problems ?? []),
  ];
  // spec.governance the gateway would refuse is Ready=False too: every tool call is refused.
  const refused = [identity, plan.governance?.condition].filter(
    (condition): condition is ReadyCondition => condition !== undefined && !condition.ready,
  );
  const first = refused[0];
  return first !== undefined
    ? {
        ...first,
        message: ['served by the gateways', ...refused.map((c) => c.message), ...notes]
          .join('; ')
          .slice(0, 1000),
      }
    : { ready: true, reason: 'Rendered', message: ['served by the gateways', ...notes].join('; ') };
}
