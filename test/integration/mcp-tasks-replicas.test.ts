// Tasks across replicas (issue 43): a task created through one gateway is polled and cancelled
// through another that shares only the shared-state encryption Secrets (and Redis): the sealed id
// opens on every replica, and 2026 upstreams are stateless, so no replica holds the task. A 2025
// upstream's task lives in its session, which the replicas share through Redis; a 2025 client's held
// result is in the shared task ledger; the per-key bound is one count for both replicas.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTaskServer, type RunningTaskServer } from '../fixtures/upstreams/task-server.js';
import { startTaskServerV1, type RunningTaskServerV1 } from '../fixtures/upstreams/task-server-v1.js';
import { legacyHeaders } from '../support/legacy-stream.js';
import { httpSource, keyRecord, newKeys, type Harness } from '../support/gateway-harness.js';
import { startReplicaHarnesses, type RedisReplicas } from '../support/redis-replicas.js';
import { callTool, pollTask, taskRequest } from '../support/task-requests.js';

const [key, sibling, bounded] = newKeys(3);
/** The bound on tasks per key in this file. */
const MAX_TASKS = 3;
let upstream: RunningTaskServer;
let v1: RunningTaskServerV1;
let plain: RunningTaskServer;
let replicas: RedisReplicas<Harness> | undefined;
let first: Harness;
let second: Harness;

beforeAll(async () => {
  upstream = await startTaskServer();
  v1 = await startTaskServerV1();
  plain = await startTaskServer({ tasks: false });
  replicas = await startReplicaHarnesses(2, {
    server: { host: '127.0.0.1', port: 0, tasks: { maxPerKey: MAX_TASKS } },
    workspaces: [
      {
        name: 'demo',
        mcpSources: [
          httpSource('tasks', upstream.url),
          httpSource('v1', v1.url),
          httpSource('plain', plain.url),
        ],
        keys: [
          keyRecord(key, { access: 'write' }),
          keyRecord(sibling, { access: 'write' }),
          keyRecord(bounded, { access: 'write' }),
        ],
      },
    ],
  });
  [first, second] = replicas.gateways as [Harness, Harness];
}, 60_000);

afterAll(async () => {
  await replicas?.stop();
  await upstream?.close();
  await v1?.close();
  await plain?.close();
});

it('tasks:two-replicas — created on one replica, polled to completion and cancelled on the other', async () => {
  const created = await callTool(first.url, key.key, 'tasks__slow', { ms: 400, text: 'r' });
  const taskId = created.result?.['taskId'] as string;
  expect(created.result).toMatchObject({ resultType: 'task', status: 'working' });
  const done = await pollTask(second.url, key.key, taskId);
  expect(done.result).toMatchObject({
    taskId,
    status: 'completed',
    result: { content: [{ text: 'done:r' }] },
  });

  const long = await callTool(second.url, key.key, 'tasks__slow', { ms: 30_000, text: 's' });
  const longId = long.result?.['taskId'] as string;
  const unknown = await taskRequest(first.url, key.key, 'tasks/get', 'no-such-task');
  expect(await taskRequest(first.url, sibling.key, 'tasks/cancel', longId)).toEqual(unknown);
  expect((await taskRequest(first.url, key.key, 'tasks/cancel', longId)).error).toBeUndefined();
  expect((await taskRequest(second.url, key.key, 'tasks/get', longId)).result).toMatchObject({
    status: 'cancelled',
  });
});

async function legacyPost(url: string, apiKey: string, method: string, params: Record<string, unknown>) {
  const response = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: legacyHeaders(apiKey),
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const text = await response.text();
  const data = text.startsWith('{')
    ? text
    : (text.split('\n').find((l) => l.startsWith('data:')) ?? '').slice(5);
  return {
    status: response.status,
    ...(JSON.parse(data) as { result?: Record<string, unknown>; error?: { code: number; message: string } }),
  };
}

it("tasks:replicas-legacy-upstream — a 2025 upstream's task made through one replica is followed and cancelled through the other, on the one shared upstream session", async () => {
  const created = await callTool(first.url, key.key, 'v1__slow', { ms: 300, text: 'shared' });
  const taskId = created.result?.['taskId'] as string;
  expect(created.result?.['resultType']).toBe('task');
  const done = await pollTask(second.url, key.key, taskId);
  expect(done.result).toMatchObject({ status: 'completed', result: { content: [{ text: 'done:shared' }] } });
  const long = await legacyPost(second.url, key.key, 'tools/call', {
    name: 'v1__slow',
    arguments: { ms: 30_000, text: 'stop' },
    task: { ttl: 20_000 },
  });
  const longId = (long.result?.['task'] as { taskId: string }).taskId;
  expect((await legacyPost(first.url, key.key, 'tasks/cancel', { taskId: longId })).result).toMatchObject({
    status: 'cancelled',
  });
  const sessions = new Set(
    v1.log.filter((r) => r.rpcMethod?.startsWith('tasks/') === true).map((r) => r.sessionId),
  );
  expect(sessions.size).toBe(1);
});

it("tasks:replicas-held — a 2025 client's held result, made on one replica, is read on the other", async () => {
  const created = await legacyPost(first.url, key.key, 'tools/call', {
    name: 'plain__slow',
    arguments: { ms: 1, text: 'kept' },
    task: {},
  });
  const taskId = (created.result?.['task'] as { taskId: string }).taskId;
  expect((await legacyPost(second.url, key.key, 'tasks/result', { taskId })).result).toMatchObject({
    content: [{ type: 'text', text: 'sync:kept' }],
  });
  expect((await legacyPost(second.url, sibling.key, 'tasks/result', { taskId })).error?.code).toBe(-32602);
});

it('tasks:replicas-bound — the per-key bound is one count across replicas: past it a task-asking call is refused like a rate limit, a plain call is not, and a task that ends frees its place', async () => {
  const ids: string[] = [];
  for (const gateway of [first, second, first]) {
    const created = await callTool(gateway.url, bounded.key, 'tasks__slow', { ms: 30_000, text: 'hold' });
    expect(created.error).toBeUndefined();
    ids.push(created.result?.['taskId'] as string);
  }
  expect(ids).toHaveLength(MAX_TASKS);
  const refused = await callTool(second.url, bounded.key, 'tasks__slow', { ms: 30_000, text: 'one more' });
  expect(refused.status).toBe(429);
  expect(refused.error).toMatchObject({
    code: -31018,
    data: { code: 'rate_limited', limit: { maxTasksPerKey: MAX_TASKS } },
  });
  const legacyRefused = await legacyPost(first.url, bounded.key, 'tools/call', {
    name: 'plain__slow',
    arguments: { ms: 1, text: 'x' },
    task: {},
  });
  expect(legacyRefused.status).toBe(429);
  // Another key is not held back, and a call that does not ask for a task runs.
  expect(
    (await callTool(first.url, sibling.key, 'tasks__slow', { ms: 1, text: 'free' })).error,
  ).toBeUndefined();
  expect(
    (await callTool(first.url, bounded.key, 'tasks__slow', { ms: 1, text: 'plain' }, false)).result,
  ).toMatchObject({
    content: [{ type: 'text', text: 'sync:plain' }],
  });
  // Cancelling one gives its place back, on whichever replica.
  expect(
    (await taskRequest(second.url, bounded.key, 'tasks/cancel', ids[0] as string)).error,
  ).toBeUndefined();
  expect(
    (await callTool(first.url, bounded.key, 'tasks__slow', { ms: 1, text: 'again' })).error,
  ).toBeUndefined();
  for (const id of ids.slice(1)) await taskRequest(first.url, bounded.key, 'tasks/cancel', id);
});
