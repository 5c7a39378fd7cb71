// Tasks of a 2025-11-25 upstream through the gateway (issue 43): the SDK v1 task runtime behind the
// gateway, driven by a 2026 client (the reference requester library over the SDK v2 client: the
// gateway maps its tasks extension to the upstream's experimental tasks) and by a 2025 client (SDK
// v1, experimental tasks end to end). Runs to the result, cancels, keeps other keys out; a tool
// without task support answers in full (a 2025 client that asked gets a held, finished task).
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { resultFromTaskOutcome } from '@modelcontextprotocol/ext-tasks/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTaskServerV1, type RunningTaskServerV1 } from '../fixtures/upstreams/task-server-v1.js';
import {
  httpSource,
  keyRecord,
  mcpPost,
  newKeys,
  startHarness,
  type Harness,
} from '../support/gateway-harness.js';
import { legacyHeaders } from '../support/legacy-stream.js';
import {
  callTool,
  extTasksSession,
  pollTask,
  taskRequest,
  TASKS_EXTENSION,
  TASKS_META,
} from '../support/task-requests.js';

const [key, sibling] = newKeys(2);
let upstream: RunningTaskServerV1;
let gateway: Harness;
const clients: LegacyClient[] = [];

beforeAll(async () => {
  upstream = await startTaskServerV1();
  gateway = await startHarness({
    workspaces: [
      {
        name: 'demo',
        mcpSources: [httpSource('v1', upstream.url)],
        keys: [keyRecord(key, { access: 'write' }), keyRecord(sibling, { access: 'write' })],
      },
    ],
  });
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await gateway?.stop();
  await upstream?.close();
});

async function legacyClient(apiKey: string): Promise<LegacyClient> {
  const client = new LegacyClient({ name: 'v1-task-client', version: '1.0.0' });
  await client.connect(
    new LegacyTransport(new URL(`${gateway.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
    }),
  );
  clients.push(client);
  return client;
}

async function legacyPost(apiKey: string, method: string, params: Record<string, unknown>) {
  const response = await fetch(`${gateway.url}/mcp`, {
    method: 'POST',
    headers: legacyHeaders(apiKey),
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const text = await response.text();
  const data = text.startsWith('{')
    ? text
    : (text.split('\n').find((l) => l.startsWith('data:')) ?? '').slice(5);
  return JSON.parse(data) as { result?: Record<string, unknown>; error?: { code: number; message: string } };
}

/** The upstream's task-creating tools/call requests (2025: `params.task`). */
const taskCalls = () =>
  upstream.log.filter(
    (r) =>
      r.rpcMethod === 'tools/call' && (r.body as { params?: { task?: unknown } }).params?.task !== undefined,
  );

it('tasks:legacy-upstream-discover — a 2025 upstream with experimental tasks makes the gateway offer tasks on both faces', async () => {
  const response = await mcpPost(gateway.url, key.key, {
    method: 'server/discover',
    params: { _meta: TASKS_META },
  });
  const body = (await response.json()) as { result: { capabilities: Record<string, unknown> } };
  expect(body.result.capabilities).toMatchObject({ extensions: { [TASKS_EXTENSION]: {} } });
  const client = await legacyClient(key.key);
  expect(client.getServerCapabilities()?.tasks).toEqual({ cancel: {}, requests: { tools: { call: {} } } });
  const { tools } = await client.listTools();
  expect(tools.find((t) => t.name === 'v1__slow')?.execution?.taskSupport).toBe('optional');
  // The upstream's own word for a tool without task support passes as it is.
  expect(tools.find((t) => t.name === 'v1__echo')?.execution?.taskSupport).toBe('forbidden');
});

it('tasks:legacy-upstream-modern-client — a 2026 client runs a 2025 upstream task to its result and cancels another (the reference requester library)', async () => {
  const before = taskCalls().length;
  const { session, client } = await extTasksSession(gateway.url, key.key);
  try {
    const execution = await session.callTool('v1__slow', { ms: 300, text: 'm' });
    expect(execution.kind).toBe('task');
    const { outcome } = await execution.settle();
    expect(resultFromTaskOutcome(outcome)).toMatchObject({ content: [{ type: 'text', text: 'done:m' }] });
    const long = await session.callTool('v1__slow', { ms: 30_000, text: 'long' });
    await long.cancel();
    expect(long.kind).toBe('task');
    const cancelledId = (long as unknown as { handle: { taskId: string } }).handle.taskId;
    const after = await taskRequest(gateway.url, key.key, 'tasks/get', cancelledId);
    expect(after.result?.['status']).toBe('cancelled');
  } finally {
    await session.close();
    await client.close();
  }
  // The upstream was asked with the 2025 `params.task`, every task request on its one session.
  const created = taskCalls().slice(before);
  expect(created).toHaveLength(2);
  const sessions = new Set(
    upstream.log.filter((r) => r.rpcMethod?.startsWith('tasks/') === true).map((r) => r.sessionId),
  );
  expect(sessions.size).toBe(1);
  expect(upstream.log.some((r) => r.rpcMethod === 'tasks/cancel')).toBe(true);
});

it('tasks:legacy-upstream-modern-raw — on the wire: the 2026 CreateTaskResult and DetailedTask, isError results completed, a failed task with its error, another key not found', async () => {
  const created = await callTool(gateway.url, key.key, 'v1__fails', { ms: 50, text: 'f' });
  expect(created.result).toMatchObject({ resultType: 'task', status: 'working' });
  const taskId = created.result?.['taskId'] as string;
  expect(taskId).toMatch(/^agwt1\./);
  expect(typeof created.result?.['ttlMs']).toBe('number');
  expect(created.result?.['ttl']).toBeUndefined();
  const done = await pollTask(gateway.url, key.key, taskId);
  expect(done.result).toMatchObject({
    status: 'completed',
    result: { isError: true, resultType: 'complete' },
  });
  const broken = await callTool(gateway.url, key.key, 'v1__breaks', { ms: 50, text: 'b' });
  const failed = await pollTask(gateway.url, key.key, broken.result?.['taskId'] as string);
  expect(failed.result).toMatchObject({ status: 'failed', error: { code: -32603 } });
  const foreign = await taskRequest(gateway.url, sibling.key, 'tasks/get', taskId);
  expect(foreign.error).toEqual({ code: -32602, message: 'Failed to retrieve task: Task not found' });
});

it('tasks:legacy-upstream-legacy-client — a 2025 client (SDK v1) runs a 2025 upstream task through the gateway, cancels another, and another key cannot see either', async () => {
  const client = await legacyClient(key.key);
  const messages: Record<string, unknown>[] = [];
  for await (const message of client.experimental.tasks.callToolStream(
    { name: 'v1__slow', arguments: { ms: 200, text: 'old' } },
    CallToolResultSchema,
    { task: { ttl: 30_000 } },
  ))
    messages.push(message as unknown as Record<string, unknown>);
  const created = messages.find((m) => m['type'] === 'taskCreated') as { task: { taskId: string } };
  expect(created.task.taskId).toMatch(/^agwt1\./);
  expect(messages.at(-1)).toMatchObject({
    type: 'result',
    result: { content: [{ type: 'text', text: 'done:old' }] },
  });
  // The client's ttl reached the upstream.
  expect((taskCalls().at(-1)?.body as { params: { task: unknown } }).params.task).toEqual({ ttl: 30_000 });
  const long = await legacyPost(key.key, 'tools/call', {
    name: 'v1__slow',
    arguments: { ms: 30_000, text: 'stop' },
    task: {},
  });
  const longId = (long.result?.['task'] as { taskId: string }).taskId;
  for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel'])
    expect((await legacyPost(sibling.key, method, { taskId: longId })).error?.code, method).toBe(-32602);
  expect(await client.experimental.tasks.cancelTask(longId)).toMatchObject({
    taskId: longId,
    status: 'cancelled',
  });
  expect((await legacyPost(key.key, 'tasks/get', { taskId: created.task.taskId })).result).toMatchObject({
    status: 'completed',
  });
});

it('tasks:legacy-upstream-no-task-tool — a tool without task support answers in full; a 2025 client that asked gets a finished task holding it', async () => {
  const before = taskCalls().length;
  const modern = await callTool(gateway.url, key.key, 'v1__echo', { text: 'e' });
  expect(modern.result).toMatchObject({ content: [{ type: 'text', text: 'e' }] });
  const legacy = await legacyPost(key.key, 'tools/call', {
    name: 'v1__echo',
    arguments: { text: 'h' },
    task: {},
  });
  const task = legacy.result?.['task'] as { taskId: string; status: string };
  expect(task.status).toBe('completed');
  expect((await legacyPost(key.key, 'tasks/result', { taskId: task.taskId })).result).toMatchObject({
    content: [{ type: 'text', text: 'h' }],
  });
  // Neither call was sent to the upstream as a task.
  expect(taskCalls().length).toBe(before);
});
