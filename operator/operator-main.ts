// The operator's composition root (`agent-gateway operator`): informers on the four kinds, on
// Secrets (references, issued keys, rendered parts), on the rendered ConfigMaps and on the tenants'
// other ConfigMaps (OpenAPI documents, issue 44); a work queue of
// workspaces fed by their events; a Lease so only the leader reconciles; a periodic resync that
// re-enqueues every workspace and sweeps orphans (the test control plane has no garbage collector).
import {
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  type KubeConfig,
  type KubernetesObject,
  type V1ConfigMap,
  type V1Deployment,
  type V1Secret,
} from '@kubernetes/client-node';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import {
  MANAGED_BY_LABEL,
  MANAGED_BY_VALUE,
  RENDERED_SELECTOR,
  WORKSPACE_LABEL,
  WORKSPACE_NAMESPACE_LABEL,
} from '../gateway/config/kube/index.js';
import type { Logger } from '../gateway/telemetry/logger.js';
import { GROUP, VERSION } from './api/v1alpha1/index.js';
import {
  WorkspaceController,
  type ControllerCaches,
  type RenderedRef,
  type Resource,
} from './controllers/workspace-controller.js';
import { ApiKubeWriter, type KubeWriter } from './kube/kube-writer.js';
import type { WorkloadRef } from './controllers/controller-caches.js';
import type { WorkloadSettings } from './controllers/plan/workload-plan.js';
import { SOURCE_WORKSPACE_LABEL } from './controllers/plan/workload-render.js';
import { ApiEventRecorder, type EventRecorder } from './kube/event-recorder.js';
import { shareDispatcher } from './kube/shared-dispatcher.js';
import type { NameResolver } from './controllers/plan/reach-check.js';
import type { TenantPolicy } from '../gateway/config/index.js';
import { ReachPolicy, discoverOwnAddresses } from '../gateway/reach/index.js';
import { LeaderElector } from './runtime/leader-election.js';
import { ResourceWatcher, type ChangeKind } from './runtime/resource-watcher.js';
import { SecretReaders } from './runtime/secret-readers.js';
import { WorkQueue } from './runtime/work-queue.js';
import type { PinReportHandler, WakeHandler } from './runtime/wake-server.js';
import { PinReports } from './controllers/pin-reports.js';
import { ApiTokenReviewer, type TokenReviewer } from './kube/token-reviewer.js';
import { WorkloadWake } from './controllers/workload-wake.js';
import { observeGauge, recordDuration } from '../gateway/telemetry/metrics.js';

export interface OperatorOptions {
  readonly kubeConfig: KubeConfig;
  /** Where the rendered Secrets and ConfigMaps go (the gateways' namespace). */
  readonly gatewayNamespace: string;
  /** Where the leader-election Lease lives (default: the gateway namespace). */
  readonly leaseNamespace?: string;
  /** Watch resources and Secrets of this namespace only (least privilege: a Role there suffices);
   * undefined watches every namespace (needs a ClusterRole for them). */
  readonly watchNamespace?: string;
  readonly identity?: string;
  readonly logger: Logger;
  readonly resyncMs?: number;
  readonly leaseDurationMs?: number;
  readonly writer?: KubeWriter;
  /** The admin's tenant reach policy (D19): what tenant resources may name. */
  readonly policy: TenantPolicy;
  /** Resolves host names for the policy (tests inject one); the system resolver otherwise. */
  readonly resolver?: NameResolver;
  readonly events?: EventRecorder;
  /** Its own image (the bridge for stdio servers), the gateway pods' labels and the cluster domain,
   * for McpSource spec.run (D25); without it stdio servers are refused (BridgeNotConfigured). */
  readonly workloads?: Omit<WorkloadSettings, 'gatewayNamespace'>;
  /** The gateways' ServiceAccount user (`system:serviceaccount:<ns>:<name>`): the only sender of
   * pinning reports (issue 41); without it none are accepted. */
  readonly gatewayUser?: string;
  /** Reviews the gateways' tokens (tests inject one); the API server's TokenReview otherwise. */
  readonly reviewer?: TokenReviewer;
}

export interface RunningOperator {
  readonly identity: string;
  isLeader(): boolean;
  /** Resolves when every informer has listed once. */
  readonly synced: Promise<void>;
  isSynced(): boolean;
  /** Resolves when the leader has nothing queued or running (tests). */
  idle(): Promise<void>;
  /** The wake endpoint's decision (runtime/wake-server.ts, D25); answered by every replica. */
  readonly wake: WakeHandler;
  /** Pinning reports (controllers/pin-reports.ts); absent without `gatewayUser`. */
  readonly pins?: PinReportHandler;
  stop(): Promise<void>;
}

type CustomObject = Resource<Record<string, unknown>> & KubernetesObject;

export function runOperator(options: OperatorOptions): RunningOperator {
  const { kubeConfig, gatewayNamespace, logger } = options;
  const identity = options.identity ?? `${hostname()}-${randomBytes(3).toString('hex')}`;
  // Before any client is made: every call and watch then shares one connection (issue 26).
  shareDispatcher(kubeConfig);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const apps = kubeConfig.makeApiClient(AppsV1Api);
  let queue: WorkQueue | undefined;
  let controller: WorkspaceController | undefined;
  const secretReaders = new SecretReaders();
  // The same bookkeeping for ConfigMaps: an McpSource's OpenAPI document (issue 44).
  const configMapReaders = new SecretReaders();
  const enqueue = (namespace: string | undefined, workspace: string | undefined) => {
    if (namespace !== undefined && workspace !== undefined)
      queue?.add(WorkspaceController.key(namespace, workspace));
  };

  const scope = options.watchNamespace;
  const customWatcher = (plural: string, onChange: (object: CustomObject, change: ChangeKind) => void) =>
    new ResourceWatcher<CustomObject>({
      kubeConfig,
      name: plural,
      path:
        scope === undefined
          ? `/apis/${GROUP}/${VERSION}/${plural}`
          : `/apis/${GROUP}/${VERSION}/namespaces/${scope}/${plural}`,
      list: () =>
        (scope === undefined
          ? custom.listCustomObjectForAllNamespaces({
              group: GROUP,
              version: VERSION,
              resourcePlural: plural,
            })
          : custom.listNamespacedCustomObject({
              group: GROUP,
              version: VERSION,
              namespace: scope,
              plural,
            })) as Promise<{
          items: CustomObject[];
        }>,
      logger,
      onChange,
    });

  const workspaces = customWatcher('workspaces', (object) => {
    // Every Workspace of that name: one of them may win or lose the name.
    for (const other of workspaces.list())
      if (other.metadata?.name === object.metadata.name)
        enqueue(other.metadata?.namespace, other.metadata?.name);
    enqueue(object.metadata.namespace, object.metadata.name);
  });
  const byWorkspaceRef = (object: CustomObject) =>
    enqueue(object.metadata.namespace, (object.spec['workspaceRef'] as { name?: string } | undefined)?.name);
  const apiKeys = customWatcher('apikeys', (object, change) => {
    if (change === 'delete')
      void controller
        ?.removeKeySecret(object.metadata.namespace, object.metadata.name)
        .catch(() => undefined);
    byWorkspaceRef(object);
  });
  const mcpSources = customWatcher('mcpsources', byWorkspaceRef);
  const dataSources = customWatcher('datasources', byWorkspaceRef);
  const secrets = new ResourceWatcher<V1Secret>({
    kubeConfig,
    name: 'secrets',
    path: scope === undefined ? '/api/v1/secrets' : `/api/v1/namespaces/${scope}/secrets`,
    list: () =>
      scope === undefined
        ? core.listSecretForAllNamespaces()
        : core.listNamespacedSecret({ namespace: scope }),
    logger,
    onChange: (secret, change) => {
      const labels = secret.metadata?.labels ?? {};
      if (secret.metadata?.namespace === gatewayNamespace && labels[MANAGED_BY_LABEL] === MANAGED_BY_VALUE) {
        // A rendered part deleted by someone else is written again.
        if (change === 'delete') enqueue(labels[WORKSPACE_NAMESPACE_LABEL], labels[WORKSPACE_LABEL]);
        return;
      }
      // A Secret a workspace read changed (rotation, or one it waited for appeared): it re-renders.
      for (const workspace of secretReaders.readersOf(
        secret.metadata?.namespace ?? '',
        secret.metadata?.name ?? '',
      ))
        queue?.add(workspace);
    },
  });
  const configMaps = new ResourceWatcher<V1ConfigMap>({
    kubeConfig,
    name: 'rendered-configmaps',
    path: `/api/v1/namespaces/${gatewayNamespace}/configmaps`,
    list: () =>
      core.listNamespacedConfigMap({ namespace: gatewayNamespace, labelSelector: RENDERED_SELECTOR }),
    labelSelector: RENDERED_SELECTOR,
    logger,
    onChange: (object, change) => {
      const labels = object.metadata?.labels ?? {};
      if (change === 'delete') enqueue(labels[WORKSPACE_NAMESPACE_LABEL], labels[WORKSPACE_LABEL]);
    },
  });

  // Tenant ConfigMaps (not the rendered ones): a document a workspace read changed or appeared.
  const tenantSelector = `${MANAGED_BY_LABEL}!=${MANAGED_BY_VALUE}`;
  const tenantConfigMaps = new ResourceWatcher<V1ConfigMap>({
    kubeConfig,
    name: 'configmaps',
    path: scope === undefined ? '/api/v1/configmaps' : `/api/v1/namespaces/${scope}/configmaps`,
    list: () =>
      scope === undefined
        ? core.listConfigMapForAllNamespaces({ labelSelector: tenantSelector })
        : core.listNamespacedConfigMap({ namespace: scope, labelSelector: tenantSelector }),
    labelSelector: tenantSelector,
    logger,
    onChange: (object) => {
      for (const workspace of configMapReaders.readersOf(
        object.metadata?.namespace ?? '',
        object.metadata?.name ?? '',
      ))
        queue?.add(workspace);
    },
  });

  // The Deployments of McpSources with spec.run (D25): their rollout shows in status.workload.
  const deployments = new ResourceWatcher<V1Deployment>({
    kubeConfig,
    name: 'workload-deployments',
    path: scope === undefined ? '/apis/apps/v1/deployments' : `/apis/apps/v1/namespaces/${scope}/deployments`,
    list: () =>
      scope === undefined
        ? apps.listDeploymentForAllNamespaces({ labelSelector: RENDERED_SELECTOR })
        : apps.listNamespacedDeployment({ namespace: scope, labelSelector: RENDERED_SELECTOR }),
    labelSelector: RENDERED_SELECTOR,
    logger,
    onChange: (object) =>
      enqueue(object.metadata?.namespace, object.metadata?.labels?.[SOURCE_WORKSPACE_LABEL]),
  });
  const workloadRef = (object: V1Deployment): WorkloadRef => ({
    name: object.metadata?.name ?? '',
    namespace: object.metadata?.namespace ?? '',
    labels: object.metadata?.labels ?? {},
    annotations: object.metadata?.annotations ?? {},
    desiredReplicas: object.spec?.replicas ?? 1,
    readyReplicas: object.status?.readyReplicas ?? 0,
  });

  const asResources = <V>(items: readonly CustomObject[]) => items as unknown as readonly Resource<V>[];
  const renderedRef = (kind: 'Secret' | 'ConfigMap', object: V1Secret | V1ConfigMap): RenderedRef => ({
    kind,
    name: object.metadata?.name ?? '',
    labels: object.metadata?.labels ?? {},
    annotations: object.metadata?.annotations ?? {},
  });
  const caches: ControllerCaches = {
    workspaces: () => asResources(workspaces.list()),
    apiKeys: (namespace) => asResources(apiKeys.list(namespace)),
    mcpSources: (namespace) => asResources(mcpSources.list(namespace)),
    dataSources: (namespace) => asResources(dataSources.list(namespace)),
    secret: (namespace, name) => {
      secretReaders.read(namespace, name);
      return secrets.get(name, namespace);
    },
    configMap: (namespace, name) => {
      configMapReaders.read(namespace, name);
      return tenantConfigMaps.get(name, namespace);
    },
    rendered: () => [
      ...configMaps.list(gatewayNamespace).map((o) => renderedRef('ConfigMap', o)),
      ...secrets
        .list(gatewayNamespace)
        .filter(
          (o) =>
            o.metadata?.labels?.[MANAGED_BY_LABEL] === MANAGED_BY_VALUE &&
            o.metadata.labels[WORKSPACE_LABEL] !== undefined,
        )
        .map((o) => renderedRef('Secret', o)),
    ],
    workloads: (namespace) => deployments.list(namespace).map(workloadRef),
  };
  const writer = options.writer ?? new ApiKubeWriter(kubeConfig);
  const watchers = [
    workspaces,
    apiKeys,
    mcpSources,
    dataSources,
    secrets,
    configMaps,
    tenantConfigMaps,
    deployments,
  ];
  let isSynced = false;
  const synced = Promise.all(watchers.map((w) => w.synced)).then(() => {
    isSynced = true;
  });

  const enqueueAll = () => {
    for (const workspace of workspaces.list())
      enqueue(workspace.metadata?.namespace, workspace.metadata?.name);
  };
  let resync: NodeJS.Timeout | undefined;
  const events = options.events ?? new ApiEventRecorder(kubeConfig, identity);
  const policy = discoverOwnAddresses(kubeConfig.getCurrentCluster()?.server).then(
    (own) => new ReachPolicy(options.policy, { gateway: [], apiServer: own.apiServer }),
  );
  const startLeading = () => {
    void policy.then((reach) => startController(reach));
  };
  const startController = (reach: ReachPolicy) => {
    if (!elector.isLeader || controller !== undefined) return;
    controller = new WorkspaceController({
      caches,
      writer,
      gatewayNamespace,
      logger,
      policy: reach,
      events,
      ...(options.workloads === undefined ? {} : { workloads: { ...options.workloads, gatewayNamespace } }),
      ...(options.resolver === undefined ? {} : { resolver: options.resolver }),
      requeueAfter: (key, delayMs) => queue?.addAfter(key, delayMs),
    });
    const active = controller;
    // Workspaces reconcile independently (one at a time per workspace); 8 in parallel keeps a
    // 50-workspace bulk apply from queueing behind one another's status writes.
    queue = new WorkQueue(
      async (key) => {
        const started = performance.now();
        try {
          await secretReaders.track(key, () => configMapReaders.track(key, () => active.reconcile(key)));
          recordDuration('agw.operator.reconcile.duration', (performance.now() - started) / 1000, {
            outcome: 'success',
          });
        } catch (error) {
          recordDuration('agw.operator.reconcile.duration', (performance.now() - started) / 1000, {
            outcome: 'error',
          });
          throw error;
        }
      },
      {
        concurrency: 8,
        onError: (key, error, retryInMs) =>
          logger.warn(
            {
              workspace: key,
              err: (error as { name?: string }).name,
              status: (error as { code?: number }).code,
              retryInMs,
            },
            'reconcile failed; retrying',
          ),
      },
    );
    void synced.then(async () => {
      enqueueAll();
      await active.sweepOrphans().catch(() => undefined);
    });
    resync = setInterval(() => {
      enqueueAll();
      void active.sweepOrphans().catch(() => undefined);
    }, options.resyncMs ?? 30_000);
    resync.unref();
  };
  const stopLeading = () => {
    if (resync !== undefined) clearInterval(resync);
    queue?.stop();
    queue = undefined;
    controller = undefined;
    secretReaders.clear();
    configMapReaders.clear();
  };
  const elector = new LeaderElector({
    kubeConfig,
    namespace: options.leaseNamespace ?? gatewayNamespace,
    name: 'agent-gateway-operator',
    identity,
    logger,
    ...(options.leaseDurationMs === undefined
      ? {}
      : {
          leaseDurationMs: options.leaseDurationMs,
          renewDeadlineMs: Math.floor(options.leaseDurationMs * 0.66),
          retryMs: Math.max(200, Math.floor(options.leaseDurationMs / 7)),
        }),
    onStartedLeading: startLeading,
    onStoppedLeading: stopLeading,
  });
  elector.start();
  observeGauge('agw.operator.queue.depth', 'Workspaces waiting for or in reconcile.', () => [
    { value: queue?.depth ?? 0 },
  ]);
  observeGauge('agw.operator.leader', '1 while this replica leads, else 0.', () => [
    { value: elector.isLeader ? 1 : 0 },
  ]);
  const wake = new WorkloadWake({ caches, writer });
  const pins =
    options.gatewayUser === undefined
      ? undefined
      : new PinReports({
          caches,
          writer,
          events,
          logger,
          gatewayUser: options.gatewayUser,
          reviewer: options.reviewer ?? new ApiTokenReviewer(kubeConfig),
        });
  return {
    identity,
    wake: (namespace, source, bearer, wait, signal) => wake.handle(namespace, source, bearer, wait, signal),
    ...(pins === undefined
      ? {}
      : { pins: (namespace, source, bearer, body) => pins.handle(namespace, source, bearer, body) }),
    isLeader: () => elector.isLeader,
    synced,
    isSynced: () => isSynced,
    idle: () => queue?.idle() ?? Promise.resolve(),
    async stop() {
      stopLeading();
      await elector.stop();
      await Promise.all(watchers.map((w) => w.stop()));
    },
  };
}
