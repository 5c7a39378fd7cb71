// The workspace controller with McpSource spec.run (issue 40, D25), against twins fed back from what
// it wrote (as the informers would): the token is minted once and kept, a second reconcile writes
// nothing, status.workload follows the observed Deployment, and a refused or deleted source loses
// its Deployment, Service, NetworkPolicy and token Secret.
import { describe, expect, it } from 'vitest';
import { TenantPolicySchema } from '../../../gateway/config/index.js';
import { ReachPolicy } from '../../../gateway/reach/index.js';
import type { McpRun } from '../../../operator/api/v1alpha1/index.js';
import type {
  RenderedRef,
  Resource,
  SecretObject,
  WorkloadRef,
} from '../../../operator/controllers/controller-caches.js';
import type { McpSourceView } from '../../../operator/controllers/plan/resource-views.js';
import {
  controllerWith,
  lastStatus,
  readyOf,
  type RecordingWriter,
} from '../../support/operator-controller.js';
import { cachedMeta, workspace } from '../../support/operator-objects.js';

const RUN: McpRun = {
  image: 'registry.example.com/mcp/fetch:1.2',
  transport: 'stdio',
  command: ['mcp-server-fetch'],
};
const settings = {
  bridgeImage: 'ghcr.io/agent-gateway/agent-gateway:1.0.0',
  gatewayNamespace: 'agw',
  gatewayPodLabels: { 'app.kubernetes.io/component': 'gateway' },
  clusterDomain: 'cluster.local',
};
const allowing = new ReachPolicy(
  TenantPolicySchema.parse({ workloads: { allowedImages: ['registry.example.com/mcp/'] } }),
);

/** Caches that hold what the writer wrote, as the informers would after their watch events. */
function cluster(sources: Resource<McpSourceView['spec']>[]) {
  const writtenReplicas: number[] = [];
  const secrets = new Map<string, SecretObject>();
  const rendered: RenderedRef[] = [];
  const deployments: WorkloadRef[] = [];
  const ws = workspace(cachedMeta('demo'));
  const caches = {
    workspaces: () => [ws],
    mcpSources: () => sources,
    secret: (namespace: string, name: string) => secrets.get(`${namespace}/${name}`),
    rendered: () => rendered,
    workloads: (namespace?: string) =>
      deployments.filter((d) => namespace === undefined || d.namespace === namespace),
  };
  const sync = (writer: RecordingWriter) => {
    for (const object of writer.applied) {
      if (object.namespace === 'agw' && object.labels['agentgateway.dev/workspace'] !== undefined)
        rendered.push({
          kind: object.kind,
          name: object.name,
          labels: object.labels,
          annotations: object.annotations,
        });
      else if (object.kind === 'Secret')
        secrets.set(`${object.namespace}/${object.name}`, {
          metadata: { labels: { ...object.labels } },
          data: Object.fromEntries(
            Object.entries(object.data).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
          ),
        });
    }
    for (const object of writer.workloads)
      if (object.kind === 'Deployment') {
        writtenReplicas.push((object as unknown as { spec: { replicas: number } }).spec.replicas);
        const metadata = object['metadata'] as unknown as {
          labels: Record<string, string>;
          annotations: Record<string, string>;
        };
        const index = deployments.findIndex((d) => d.name === object.metadata.name);
        if (index >= 0) deployments.splice(index, 1);
        deployments.push({
          name: object.metadata.name,
          namespace: object.metadata.namespace,
          labels: metadata.labels,
          annotations: metadata.annotations,
          desiredReplicas: 1,
          readyReplicas: 0,
        });
      }
    for (const removed of writer.removed) {
      const [kind, namespace, name] = removed.split('/') as [string, string, string];
      if (kind === 'Secret') secrets.delete(`${namespace}/${name}`);
      if (kind === 'Deployment') {
        const index = deployments.findIndex((d) => d.name === name && d.namespace === namespace);
        if (index >= 0) deployments.splice(index, 1);
      }
    }
    for (const source of sources) {
      const status = lastStatus(writer, source.metadata.name);
      if (status !== undefined)
        (source as { status?: Record<string, unknown> }).status = {
          ...(source.status ?? {}),
          ...status,
          observedGeneration: 1,
        };
    }
    const wsStatus = lastStatus(writer, 'demo');
    if (wsStatus !== undefined)
      (ws as { status?: Record<string, unknown> }).status = wsStatus as unknown as Record<string, unknown>;
    writer.applied.length = 0;
    writer.workloads.length = 0;
    writer.removed.length = 0;
    writer.statuses.length = 0;
  };
  return { caches, sync, deployments, secrets, writtenReplicas };
}

function runSource(run: McpRun = RUN): Resource<McpSourceView['spec']> {
  return { metadata: cachedMeta('fetch'), spec: { workspaceRef: { name: 'demo' }, run } };
}

describe('WorkspaceController with spec.run', () => {
  it('operator:workload-token-stable — the token is minted once into an owned Secret and kept across reconciles', async () => {
    const world = cluster([runSource()]);
    const { controller, writer } = controllerWith(world.caches, { policy: allowing, workloads: settings });
    await controller.reconcile('tenant-a/demo');
    const tokenSecrets = writer.applied.filter((o) => o.name === 'mcp-fetch-token');
    expect(tokenSecrets).toHaveLength(1);
    const secret = tokenSecrets[0];
    expect(secret?.namespace).toBe('tenant-a');
    expect(secret?.ownerReferences).toEqual([
      {
        apiVersion: 'agentgateway.dev/v1alpha1',
        kind: 'McpSource',
        name: 'fetch',
        uid: 'uid-fetch',
        controller: true,
      },
    ]);
    const token = secret?.data['token'] ?? '';
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    // The same token reaches the gateways as the source's bearer credential.
    const credentials = writer.applied.find((o) => o.name === 'agw-ws-demo-s0');
    expect(Object.values(credentials?.data ?? {})).toContain(token);
    // Before the Secret is seen in the cache, a second reconcile does not mint another.
    await controller.reconcile('tenant-a/demo');
    expect(writer.applied.filter((o) => o.name === 'mcp-fetch-token')).toHaveLength(1);
    world.sync(writer);
    await controller.reconcile('tenant-a/demo');
    expect(writer.applied.filter((o) => o.name === 'mcp-fetch-token')).toEqual([]);
    expect(world.secrets.get('tenant-a/mcp-fetch-token')?.data?.['token']).toBe(
      Buffer.from(token).toString('base64'),
    );
  });

  it('operator:workload-idempotent — a second reconcile of an unchanged workspace with a run source writes nothing', async () => {
    const world = cluster([runSource()]);
    const { controller, writer } = controllerWith(world.caches, { policy: allowing, workloads: settings });
    await controller.reconcile('tenant-a/demo');
    expect(writer.workloads.map((o) => o.kind)).toEqual(['Service', 'NetworkPolicy', 'Deployment']);
    expect(readyOf(writer, 'fetch')).toMatchObject({ status: 'True', reason: 'Rendered' });
    world.sync(writer);
    await controller.reconcile('tenant-a/demo'); // status.workload appears (0/1)
    expect(lastStatus(writer, 'fetch')).toMatchObject({ workload: '0/1' });
    world.sync(writer);
    await controller.reconcile('tenant-a/demo');
    expect(writer.applied).toEqual([]);
    expect(writer.workloads).toEqual([]);
    expect(writer.removed).toEqual([]);
    expect(writer.statuses).toEqual([]);
  });

  it('operator:workload-status — status.workload is ready/desired of the observed Deployment', async () => {
    const world = cluster([runSource()]);
    const { controller, writer } = controllerWith(world.caches, { policy: allowing, workloads: settings });
    await controller.reconcile('tenant-a/demo');
    world.sync(writer);
    const deployment = world.deployments[0] as WorkloadRef;
    world.deployments[0] = { ...deployment, desiredReplicas: 1, readyReplicas: 1 };
    await controller.reconcile('tenant-a/demo');
    expect(lastStatus(writer, 'fetch')).toMatchObject({ workload: '1/1' });
  });

  it('operator:workload-removed — a refused or deleted run source loses its Deployment, Service, NetworkPolicy and token', async () => {
    const sources = [runSource()];
    const world = cluster(sources);
    const { controller, writer } = controllerWith(world.caches, { policy: allowing, workloads: settings });
    await controller.reconcile('tenant-a/demo');
    world.sync(writer);
    // The spec now names an image the policy does not allow: refused, and its workload removed.
    sources[0] = { ...runSource({ ...RUN, image: 'docker.io/evil/x:1' }), status: sources[0]?.status ?? {} };
    await controller.reconcile('tenant-a/demo');
    expect(readyOf(writer, 'fetch')).toMatchObject({ status: 'False', reason: 'ImageNotAllowed' });
    expect(writer.removed.sort()).toEqual([
      'Deployment/tenant-a/mcp-fetch',
      'NetworkPolicy/tenant-a/mcp-fetch',
      'Secret/tenant-a/mcp-fetch-token',
      'Service/tenant-a/mcp-fetch',
    ]);
    expect(writer.workloads).toEqual([]);
    // Deleted: the Deployment seen in the cache goes with the rest.
    sources[0] = runSource();
    world.sync(writer);
    await controller.reconcile('tenant-a/demo');
    world.sync(writer);
    sources.length = 0;
    await controller.reconcile('tenant-a/demo');
    expect(writer.removed).toContain('Deployment/tenant-a/mcp-fetch');
    expect(writer.removed).toContain('Secret/tenant-a/mcp-fetch-token');
  });

  it('operator:scale-to-zero-controller — idle since creation: zero replicas; a reported call brings them back and the reconcile comes again when it falls idle', async () => {
    const sources = [runSource({ ...RUN, scaleToZero: { idleAfterSeconds: 60 } })];
    const world = cluster(sources);
    let now = Date.parse('2026-01-01T00:00:30Z'); // 30 s after creation (cachedMeta)
    const requeues: { key: string; delayMs: number }[] = [];
    const { controller, writer } = controllerWith(world.caches, {
      policy: allowing,
      workloads: { ...settings, wakeUrl: 'http://agw-operator-wake.agw.svc.cluster.local:8083' },
      now: () => new Date(now),
      requeueAfter: (key, delayMs) => requeues.push({ key, delayMs }),
    });
    await controller.reconcile('tenant-a/demo');
    // The source the gateways get names the wake endpoint of this source.
    const rendered = JSON.stringify(writer.applied);
    expect(rendered).toContain('http://agw-operator-wake.agw.svc.cluster.local:8083/wake/tenant-a/fetch');
    // Its time-outs grow by the wake time-out (default 120 s): a hop that wakes it waits for it.
    expect(rendered).toMatch(/connectMs\\?":130000,\\?"listMs\\?":135000,\\?"callMs\\?":180000/);
    world.sync(writer);
    expect(world.writtenReplicas).toEqual([1]);
    expect(requeues).toEqual([{ key: 'tenant-a/demo', delayMs: 30_250 }]);
    // Idle for 60 s: the reconcile the requeue asked for renders zero replicas and says so.
    now = Date.parse('2026-01-01T00:01:01Z');
    requeues.length = 0;
    await controller.reconcile('tenant-a/demo');
    expect(readyOf(writer, 'fetch')?.message).toContain('scaled to zero while idle');
    world.sync(writer);
    expect(world.writtenReplicas).toEqual([1, 0]);
    expect(requeues).toEqual([]);
    // A gateway reported a call (the wake endpoint wrote lastActiveTime): one replica again.
    (sources[0] as { status?: Record<string, unknown> }).status = {
      ...(sources[0]?.status ?? {}),
      lastActiveTime: '2026-01-01T00:01:01Z',
    };
    now = Date.parse('2026-01-01T00:01:02Z');
    await controller.reconcile('tenant-a/demo');
    world.sync(writer);
    expect(world.writtenReplicas).toEqual([1, 0, 1]);
    expect(requeues).toEqual([{ key: 'tenant-a/demo', delayMs: 59_250 }]);
  });

  it('operator:scale-to-zero-needs-wake-url — without --wake-url a scaleToZero source is refused, and nothing runs', async () => {
    const world = cluster([runSource({ ...RUN, scaleToZero: { idleAfterSeconds: 60 } })]);
    const { controller, writer } = controllerWith(world.caches, { policy: allowing, workloads: settings });
    await controller.reconcile('tenant-a/demo');
    expect(readyOf(writer, 'fetch')).toMatchObject({ status: 'False', reason: 'WakeNotConfigured' });
    expect(writer.workloads).toEqual([]);
  });
});
