// Tasks across replicas (issue 43): a task created through one gateway is polled and cancelled
// through another that shares only the shared-state encryption Secrets (and Redis): the sealed id
// opens on every replica, and 2026 upstreams are stateless, so no replica holds the task.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTaskServer, type RunningTaskServer } from '../fixtures/upstreams/task-server.js';
import { httpSource, keyRecord, newKeys, type Harness } from '../support/gateway-harness.js';
import { startReplicaHarnesses, type RedisReplicas } from '../support/redis-replicas.js';
import { callTool, pollTask, taskRequest } from '../support/task-requests.js';

const [key, sibling] = newKeys(2);
let upstream: RunningTaskServer;
let replicas: RedisReplicas<Harness> | undefined;
let first: Harness;
let second: Harness;

beforeAll(async () => {
  upstream = await startTaskServer();
  replicas = await startReplicaHarnesses(2, {
    workspaces: [
      {
        name: 'demo',
        mcpSources: [httpSource('tasks', upstream.url)],
        keys: [keyRecord(key, { access: 'write' }), keyRecord(sibling, { access: 'write' })],
      },
    ],
  });
  [first, second] = replicas.gateways as [Harness, Harness];
}, 60_000);

afterAll(async () => {
  await replicas?.stop();
  await upstream?.close();
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
