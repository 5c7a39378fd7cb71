// The workspace controller against in-memory caches and a recording writer (the KubeWriter twin):
// what it writes, what it leaves alone when nothing changed, and what it deletes.
import { describe, expect, it } from 'vitest';
import type { RenderedRef } from '../../../operator/controllers/workspace-controller.js';
import { controllerWith } from '../../support/operator-controller.js';
import { meta, workspace as workspaceOf } from '../../support/operator-objects.js';

function workspace(namespace: string, name: string, created: string) {
  return workspaceOf({ ...meta(name, namespace), creationTimestamp: created });
}

describe('WorkspaceController', () => {
  it('operator:name-conflict — of two Workspaces with one name, the older renders and the newer reports NameConflict', async () => {
    const older = workspace('team-a', 'shared', '2026-01-01T00:00:00Z');
    const newer = workspace('team-b', 'shared', '2026-02-01T00:00:00Z');
    const { controller, writer } = controllerWith({ workspaces: () => [older, newer] });
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
    const rendered: RenderedRef[] = [];
    const { controller, writer } = controllerWith({ workspaces: () => [ws], rendered: () => rendered });
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
    const { controller, writer } = controllerWith({
      workspaces: () => [live],
      rendered: () => [ref('live', 'team-a'), ref('gone', 'team-a')],
    });
    await controller.sweepOrphans();
    expect(writer.removed).toEqual(['ConfigMap/agw/agw-ws-gone-c0']);
  });
});
