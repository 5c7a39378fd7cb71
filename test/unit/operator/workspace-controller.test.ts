// The workspace controller against in-memory caches and a recording writer (the KubeWriter twin):
// what it writes, what it leaves alone when nothing changed, and what it deletes.
import { describe, expect, it } from 'vitest';
import type {
  ControllerCaches,
  RenderedRef,
  Resource,
} from '../../../operator/controllers/workspace-controller.js';
import { WorkspaceController } from '../../../operator/controllers/workspace-controller.js';
import type { KubeWriter, ObjectToApply } from '../../../operator/kube/kube-writer.js';
import { createPinoLogger } from '../../../gateway/telemetry/index.js';

class RecordingWriter implements KubeWriter {
  readonly applied: ObjectToApply[] = [];
  readonly removed: string[] = [];
  readonly statuses: { plural: string; name: string; status: Record<string, unknown> }[] = [];
  apply(object: ObjectToApply): Promise<void> {
    this.applied.push(object);
    return Promise.resolve();
  }
  remove(kind: string, namespace: string, name: string): Promise<void> {
    this.removed.push(`${kind}/${namespace}/${name}`);
    return Promise.resolve();
  }
  patchStatus(
    plural: string,
    _namespace: string,
    name: string,
    status: Record<string, unknown>,
  ): Promise<void> {
    this.statuses.push({ plural, name, status });
    return Promise.resolve();
  }
}

function workspace(namespace: string, name: string, created: string): Resource<Record<string, never>> {
  return { metadata: { name, namespace, creationTimestamp: created, generation: 1 }, spec: {} };
}

function caches(overrides: Partial<ControllerCaches> & { rendered?: () => RenderedRef[] }): ControllerCaches {
  return {
    workspaces: () => [],
    apiKeys: () => [],
    mcpSources: () => [],
    dataSources: () => [],
    secret: () => undefined,
    rendered: () => [],
    ...overrides,
  };
}

const logger = createPinoLogger({ level: 'silent' });

describe('WorkspaceController', () => {
  it('operator:name-conflict — of two Workspaces with one name, the older renders and the newer reports NameConflict', async () => {
    const older = workspace('team-a', 'shared', '2026-01-01T00:00:00Z');
    const newer = workspace('team-b', 'shared', '2026-02-01T00:00:00Z');
    const writer = new RecordingWriter();
    const controller = new WorkspaceController({
      caches: caches({ workspaces: () => [older, newer] }),
      writer,
      gatewayNamespace: 'agw',
      logger,
    });
    await controller.reconcile('team-b/shared');
    expect(writer.applied).toEqual([]);
    expect(writer.statuses[0]?.status).toMatchObject({
      conditions: [{ type: 'Ready', status: 'False', reason: 'NameConflict' }],
    });
    await controller.reconcile('team-a/shared');
    expect(writer.applied.map((o) => o.name)).toContain('agw-ws-shared-c0');
    expect(writer.applied.every((o) => o.namespace === 'agw')).toBe(true);
  });

  it('operator:skip-unchanged — a second reconcile of an unchanged workspace writes nothing', async () => {
    const ws = workspace('team-a', 'calm', '2026-01-01T00:00:00Z');
    const writer = new RecordingWriter();
    const rendered: RenderedRef[] = [];
    const controller = new WorkspaceController({
      caches: caches({ workspaces: () => [ws], rendered: () => rendered }),
      writer,
      gatewayNamespace: 'agw',
      logger,
    });
    await controller.reconcile('team-a/calm');
    const first = writer.applied.length;
    expect(first).toBeGreaterThan(0);
    rendered.push(
      ...writer.applied.map((o) => ({
        kind: o.kind,
        name: o.name,
        labels: o.labels,
        annotations: o.annotations,
      })),
    );
    const lastStatus = writer.statuses.at(-1)?.status ?? {};
    (ws as { status?: Record<string, unknown> }).status = lastStatus;
    await controller.reconcile('team-a/calm');
    expect(writer.applied.length).toBe(first);
    expect(writer.statuses.length).toBe(1);
  });

  it('operator:orphan-sweep — rendered objects of a Workspace that is gone are deleted; others stay', async () => {
    const live = workspace('team-a', 'live', '2026-01-01T00:00:00Z');
    const ref = (ws: string, ns: string): RenderedRef => ({
      kind: 'ConfigMap',
      name: `agw-ws-${ws}-c0`,
      labels: { 'agentgateway.dev/workspace': ws, 'agentgateway.dev/workspace-namespace': ns },
      annotations: {},
    });
    const writer = new RecordingWriter();
    const controller = new WorkspaceController({
      caches: caches({
        workspaces: () => [live],
        rendered: () => [ref('live', 'team-a'), ref('gone', 'team-a')],
      }),
      writer,
      gatewayNamespace: 'agw',
      logger,
    });
    await controller.sweepOrphans();
    expect(writer.removed).toEqual(['ConfigMap/agw/agw-ws-gone-c0']);
  });
});
