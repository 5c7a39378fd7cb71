// 2025-11-25 clients and tasks through the gateway (issue 43): the gateway speaks the experimental
// tasks of 2025 to them and maps to a 2026 upstream of the tasks extension. The SDK v1 client (the
// published runtime of the 2025 tasks) sees the capability, runs a task to its result, cancels
// another; another key, another workspace and forged ids get "not found"; a source that answers in
// full still gives a 2025 client that asked for a task a (finished) task, whose result the gateway
// holds; isError results are `failed` in 2025 terms.
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTaskServer, type RunningTaskServer } from '../fixtures/upstreams/task-server.js';
import { httpSource, keyRecord, newKeys, startHarness, type Harness } from '../support/gateway-harness.js';
import { legacyHeaders } from '../support/legacy-stream.js';
import { TASKS_EXTENSION } from '../support/task-requests.js';

const [key, sibling, plainOnly, stranger] = newKeys(4);
let tasks: RunningTaskServer;
let plain: RunningTaskServer;
let gateway: Harness;
const clients: LegacyClient[] = [];

beforeAll(async () => {
  tasks = await startTaskServer();
  plain = await startTaskServer({ tasks: false });
  gateway = await startHarness({
    workspaces: [
      {
        name: 'demo',
        mcpSources: [httpSource('tasks', tasks.url), httpSource('plain', plain.url)],
        keys: [
          keyRecord(key, { access: 'write' }),
          keyRecord(sibling, { access: 'write' }),
          keyRecord(plainOnly, { access: 'write', sources: ['plain'] }),
        ],
      },
      {
        name: 'other',
        mcpSources: [httpSource('tasks', tasks.url)],
        keys: [keyRecord(stranger, { access: 'write' })],
      },
    ],
  });
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await gateway?.stop();
  await tasks?.close();
  await plain?.close();
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

interface Answer {
  readonly result?: Record<string, unknown>;
  readonly error?: { code: number; message: string };
}

/** One 2025 request on the wire (stateless legacy face: no handshake needed). */
async function post(apiKey: string, method: string, params: Record<string, unknown>): Promise<Answer> {
  const response = await fetch(`${gateway.url}/mcp`, {
    method: 'POST',
    headers: legacyHeaders(apiKey),
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const text = await response.text();
  const data = text.startsWith('{')
    ? text
    : (text.split('\n').find((l) => l.startsWith('data:')) ?? '').slice(5);
  return JSON.parse(data) as Answer;
}

/** Runs a task to its end with the SDK v1 client; every message it yielded. */
async function runToEnd(client: LegacyClient, name: string, args: Record<string, unknown>) {
  const messages: Record<string, unknown>[] = [];
  const stream = client.experimental.tasks.callToolStream({ name, arguments: args }, CallToolResultSchema, {
    task: { ttl: 60_000 },
  });
  for await (const message of stream) messages.push(message as unknown as Record<string, unknown>);
  return messages;
}

it('tasks:legacy-capability — initialize declares 2025 tasks (call and cancel, no list) to a key that may see a task source; tools say how they may be called', async () => {
  const client = await legacyClient(key.key);
  expect(client.getServerCapabilities()?.tasks).toEqual({ cancel: {}, requests: { tools: { call: {} } } });
  const plainClient = await legacyClient(plainOnly.key);
  expect(plainClient.getServerCapabilities()?.tasks).toBeUndefined();
  const { tools } = await client.listTools();
  const byName = new Map(tools.map((t) => [t.name, t]));
  expect(byName.get('tasks__slow')?.execution?.taskSupport).toBe('optional');
  expect(byName.get('plain__slow')?.execution?.taskSupport).toBeUndefined();
  expect((await post(key.key, 'tasks/list', {})).error?.code).toBe(-32601);
});

it('tasks:legacy-client-poll — the SDK v1 client runs a task of a 2026 upstream to its result through the gateway', async () => {
  const client = await legacyClient(key.key);
  const messages = await runToEnd(client, 'tasks__slow', { ms: 300, text: 'v1' });
  const created = messages.find((m) => m['type'] === 'taskCreated') as {
    task: { taskId: string; ttl: number };
  };
  expect(created.task.taskId).toMatch(/^agwt1\./);
  expect(created.task.ttl).toBe(60_000);
  expect(messages.some((m) => m['type'] === 'taskStatus')).toBe(true);
  const last = messages.at(-1) as { type: string; result: Record<string, unknown> };
  expect(last.type).toBe('result');
  expect(last.result['content']).toEqual([{ type: 'text', text: 'done:v1' }]);
  expect(last.result['_meta']).toMatchObject({
    'io.modelcontextprotocol/related-task': { taskId: created.task.taskId },
  });
  // The upstream was asked in 2026 terms: the tasks extension declared, no 2025 `task` param.
  const call = tasks.log.filter((r) => r.rpcMethod === 'tools/call').at(-1)?.body as {
    params: Record<string, unknown> & { _meta: Record<string, { extensions?: Record<string, unknown> }> };
  };
  expect(call.params['task']).toBeUndefined();
  expect(
    call.params._meta['io.modelcontextprotocol/clientCapabilities']?.extensions?.[TASKS_EXTENSION],
  ).toEqual({});
  // The upstream's id is never shown.
  expect(JSON.stringify(messages)).not.toContain([...tasks.store.keys()].at(-1));
});

it('tasks:legacy-cancel — tasks/cancel cancels upstream and answers the cancelled Task; a second cancel is the 2025 terminal-status error', async () => {
  const client = await legacyClient(key.key);
  const created = await post(key.key, 'tools/call', {
    name: 'tasks__slow',
    arguments: { ms: 30_000, text: 'long' },
    task: { ttl: 60_000 },
  });
  const taskId = (created.result?.['task'] as { taskId: string }).taskId;
  expect((await client.experimental.tasks.getTask(taskId)).status).toBe('working');
  const cancelled = await client.experimental.tasks.cancelTask(taskId);
  expect(cancelled).toMatchObject({ taskId, status: 'cancelled' });
  expect([...tasks.store.values()].at(-1)?.status).toBe('cancelled');
  const again = await post(key.key, 'tasks/cancel', { taskId });
  expect(again.error).toMatchObject({
    code: -32602,
    message: 'Cannot cancel task in terminal status: cancelled',
  });
  const result = await post(key.key, 'tasks/result', { taskId });
  expect(result.error?.code).toBe(-32603);
});

it("tasks:legacy-isolation — another key's, another workspace's, a forged and an unknown task id all answer like an unknown task", async () => {
  const created = await post(key.key, 'tools/call', {
    name: 'tasks__slow',
    arguments: { ms: 30_000, text: 'mine' },
    task: {},
  });
  const taskId = (created.result?.['task'] as { taskId: string }).taskId;
  const unknown = await post(key.key, 'tasks/get', { taskId: 'no-such-task' });
  expect(unknown.error).toEqual({ code: -32602, message: 'Failed to retrieve task: Task not found' });
  const forged = `${taskId.slice(0, -10)}AAAAAAAAAA`;
  for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
    for (const [apiKey, id] of [
      [sibling.key, taskId],
      [stranger.key, taskId],
      [key.key, forged],
    ] as const)
      expect(await post(apiKey, method, { taskId: id }), `${method}`).toEqual(unknown);
  }
  expect([...tasks.store.values()].at(-1)?.status).toBe('working');
  await post(key.key, 'tasks/cancel', { taskId });
});

it('tasks:legacy-held — a source that answers in full still gives a 2025 client that asked a finished task; tasks/get and tasks/result find its held result', async () => {
  const created = await post(key.key, 'tools/call', {
    name: 'plain__slow',
    arguments: { ms: 1, text: 'held' },
    task: { ttl: 1000 },
  });
  const task = created.result?.['task'] as { taskId: string; status: string; ttl: number };
  expect(task.status).toBe('completed');
  expect(task.taskId).toMatch(/^agwt1\./);
  expect((await post(key.key, 'tasks/get', { taskId: task.taskId })).result).toMatchObject({
    taskId: task.taskId,
    status: 'completed',
  });
  const result = await post(key.key, 'tasks/result', { taskId: task.taskId });
  expect(result.result).toMatchObject({
    content: [{ type: 'text', text: 'sync:held' }],
    _meta: { 'io.modelcontextprotocol/related-task': { taskId: task.taskId } },
  });
  expect((await post(sibling.key, 'tasks/result', { taskId: task.taskId })).error?.code).toBe(-32602);
  // A call without `task` is answered in full as before.
  const plainCall = await post(key.key, 'tools/call', {
    name: 'plain__slow',
    arguments: { ms: 1, text: 'p' },
  });
  expect(plainCall.result).toMatchObject({ content: [{ type: 'text', text: 'sync:p' }] });
});

it('tasks:legacy-tool-error — a task whose tool answered isError is `failed` to a 2025 client, and tasks/result gives that tool result', async () => {
  const client = await legacyClient(key.key);
  const messages = await runToEnd(client, 'tasks__slow', { ms: 50, text: 'error:x' });
  const statuses = messages
    .filter((m) => m['type'] === 'taskStatus')
    .map((m) => (m['task'] as { status: string }).status);
  expect(statuses.at(-1)).toBe('failed');
  const taskId = (messages.find((m) => m['type'] === 'taskCreated') as { task: { taskId: string } }).task
    .taskId;
  const result = await post(key.key, 'tasks/result', { taskId });
  expect(result.result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'failed:error:x' }] });
});
