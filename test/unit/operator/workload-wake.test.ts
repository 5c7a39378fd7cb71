// Scale to zero, the operator's wake endpoint (issue 40 item 5, D25 and D10): over real HTTP (the wake
// server on a loopback port) in front of the decision, against cache twins and a recording writer.
// Unknown sources, sources without scaleToZero, missing and wrong tokens all get the same 401; a
// report is written as status.lastActiveTime (not again within seconds, unless the workload sleeps);
// a waiting wake answers once a pod is Ready, or 504 after the source's wake time-out.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { McpRun } from '../../../operator/api/v1alpha1/index.js';
import type { Resource, SecretObject, WorkloadRef } from '../../../operator/controllers/controller-caches.js';
import type { McpSourceView } from '../../../operator/controllers/plan/resource-views.js';
import { WorkloadWake } from '../../../operator/controllers/workload-wake.js';
import { startWakeServer } from '../../../operator/runtime/wake-server.js';
import { controllerCaches, RecordingWriter } from '../../support/operator-controller.js';
import { cachedMeta } from '../../support/operator-objects.js';

const TOKEN = 'a'.repeat(43);
const RUN: McpRun = {
  image: 'registry.example.com/mcp/fetch:1.2',
  transport: 'stdio',
  command: ['mcp-server-fetch'],
  scaleToZero: { idleAfterSeconds: 60, wakeTimeoutSeconds: 5 },
};

function world(run: McpRun = RUN) {
  const sources: Resource<McpSourceView['spec']>[] = [
    { metadata: cachedMeta('fetch'), spec: { workspaceRef: { name: 'demo' }, run } },
    {
      metadata: cachedMeta('plain'),
      spec: { workspaceRef: { name: 'demo' }, run: { ...run, scaleToZero: undefined } },
    },
  ];
  const secret = (source: string): SecretObject => ({
    metadata: { labels: { 'agentgateway.dev/mcp-source': source } },
    data: { token: Buffer.from(TOKEN).toString('base64') },
  });
  const secrets = new Map([
    ['tenant-a/mcp-fetch-token', secret('fetch')],
    ['tenant-a/mcp-plain-token', secret('plain')],
  ]);
  const deployments: WorkloadRef[] = [
    {
      name: 'mcp-fetch',
      namespace: 'tenant-a',
      labels: {},
      annotations: {},
      desiredReplicas: 0,
      readyReplicas: 0,
    },
  ];
  const caches = controllerCaches({
    mcpSources: () => sources,
    secret: (namespace, name) => secrets.get(`${namespace}/${name}`),
    workloads: () => deployments,
  });
  return { caches, deployments, sources };
}

const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

async function serve(wake: WorkloadWake): Promise<string> {
  const server = await startWakeServer(0, '127.0.0.1', (...args) => wake.handle(...args));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** `token` null: no Authorization header at all. */
function post(base: string, path: string, token: string | null = TOKEN, method = 'POST') {
  return fetch(`${base}${path}`, {
    method,
    headers: token === null ? {} : { authorization: `Bearer ${token}` },
  });
}

describe('the operator wake endpoint', () => {
  it('operator:wake-no-oracle — unknown source, no scaleToZero, no token and a wrong token all answer the same 401, and nothing is written', async () => {
    const { caches } = world();
    const writer = new RecordingWriter();
    const base = await serve(new WorkloadWake({ caches, writer }));
    const answers = await Promise.all([
      post(base, '/wake/tenant-a/nope'),
      post(base, '/wake/tenant-b/fetch'),
      post(base, '/wake/tenant-a/plain'),
      post(base, '/wake/tenant-a/fetch', null),
      fetch(`${base}/wake/tenant-a/fetch`, { method: 'POST', headers: { authorization: `Basic ${TOKEN}` } }),
      post(base, '/wake/tenant-a/fetch', 'b'.repeat(43)),
      post(base, '/wake/tenant-a/fetch', TOKEN.slice(1)),
    ]);
    const bodies = await Promise.all(answers.map((a) => a.text()));
    expect(answers.map((a) => a.status)).toEqual([401, 401, 401, 401, 401, 401, 401]);
    expect(new Set(bodies)).toEqual(new Set(['{"error":"unauthorized"}\n']));
    expect(writer.statuses).toEqual([]);
    // Paths that are not a wake, odd encodings and other methods.
    expect((await post(base, '/wake/tenant-a/fetch/x')).status).toBe(404);
    expect((await post(base, '/wake/tenant-a/%2E%2E')).status).toBe(404);
    expect((await post(base, '/wake/Tenant-A/fetch')).status).toBe(404);
    expect((await post(base, '/wake/tenant-a/fetch', TOKEN, 'GET')).status).toBe(405);
  });

  it('operator:wake-report — a report writes status.lastActiveTime once, not again within seconds while awake, and every time while asleep', async () => {
    const { caches, deployments } = world();
    const writer = new RecordingWriter();
    let now = Date.parse('2026-01-01T00:00:30Z');
    const base = await serve(new WorkloadWake({ caches, writer, now: () => now }));
    // Asleep (the Deployment wants 0): written each time.
    expect((await post(base, '/wake/tenant-a/fetch')).status).toBe(200);
    expect((await post(base, '/wake/tenant-a/fetch')).status).toBe(200);
    expect(writer.statuses).toEqual([
      { plural: 'mcpsources', name: 'fetch', status: { lastActiveTime: '2026-01-01T00:00:30.000Z' } },
      { plural: 'mcpsources', name: 'fetch', status: { lastActiveTime: '2026-01-01T00:00:30.000Z' } },
    ]);
    // Awake: not again within 5 s, then again.
    deployments[0] = { ...(deployments[0] as WorkloadRef), desiredReplicas: 1, readyReplicas: 1 };
    writer.statuses.length = 0;
    now += 1000;
    expect(await (await post(base, '/wake/tenant-a/fetch')).json()).toEqual({ ready: true });
    expect(writer.statuses).toEqual([]);
    now += 5000;
    await post(base, '/wake/tenant-a/fetch');
    expect(writer.statuses).toHaveLength(1);
  });

  it('operator:wake-wait — ?wait=1 answers once the Deployment has a Ready pod, and 504 after the wake time-out', async () => {
    const { caches, deployments } = world();
    const writer = new RecordingWriter();
    const base = await serve(new WorkloadWake({ caches, writer, pollMs: 20 }));
    const started = Date.now();
    const waiting = post(base, '/wake/tenant-a/fetch?wait=1');
    await new Promise((resolve) => setTimeout(resolve, 300));
    // The leader scaled it up (as the reconcile after the status write would) and a pod got Ready.
    deployments[0] = { ...(deployments[0] as WorkloadRef), desiredReplicas: 1, readyReplicas: 1 };
    const answer = await waiting;
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ ready: true });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    // Never Ready: 504 once wakeTimeoutSeconds (5 s, from a clock the test moves) have passed.
    deployments[0] = { ...deployments[0], desiredReplicas: 1, readyReplicas: 0 };
    let now = Date.now();
    const timed = new WorkloadWake({ caches, writer, pollMs: 10, now: () => (now += 100) });
    const base2 = await serve(timed);
    const late = await post(base2, '/wake/tenant-a/fetch?wait=1');
    expect(late.status).toBe(504);
    expect(await late.json()).toEqual({ ready: false });
  });
});
