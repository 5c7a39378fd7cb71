// Tasks through the gateway (issue 43, SEP-2663, 2026-07-28 only), against a real task-capable
// upstream on the v2 SDK and one without the extension: the extension is advertised to a key that
// may see a task-capable source; a task-augmented call comes back as a task whose id is sealed to the
// key; polling it gives the result, cancelling it cancels upstream; another key's, another
// workspace's, a forged or a malformed id all answer exactly like an unknown task; a source without
// tasks answers in full.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTaskServer, type RunningTaskServer } from '../fixtures/upstreams/task-server.js';
import {
  httpSource,
  keyRecord,
  mcpPost,
  newKeys,
  startHarness,
  type Harness,
} from '../support/gateway-harness.js';
import { fakeCredentials } from '../support/fake-credentials.js';
import { auditRecordOf } from '../support/audit-records.js';
import { openListen } from '../support/sse-stream.js';
import { resultFromTaskOutcome } from '@modelcontextprotocol/ext-tasks/client';
import {
  extTasksSession,
  callTool,
  pollTask,
  taskRequest,
  TASKS_EXTENSION,
  TASKS_META,
} from '../support/task-requests.js';

const [key, sibling, plainOnly, stranger] = newKeys(4);
let tasks: RunningTaskServer;
let plain: RunningTaskServer;
let gateway: Harness;

beforeAll(async () => {
  tasks = await startTaskServer();
  plain = await startTaskServer({ tasks: false });
  gateway = await startHarness(document());
}, 60_000);

/** The gateway's document; `keyTools` narrows the main key's tool patterns. */
function document(keyTools: string[] = ['*']): Record<string, unknown> {
  return {
    workspaces: [
      {
        name: 'demo',
        mcpSources: [httpSource('tasks', tasks.url), httpSource('plain', plain.url)],
        keys: [
          keyRecord(key, { access: 'write', tools: keyTools }),
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
  };
}

afterAll(async () => {
  await gateway?.stop();
  await tasks?.close();
  await plain?.close();
});

async function discoverCapabilities(apiKey: string): Promise<Record<string, unknown>> {
  const response = await mcpPost(gateway.url, apiKey, {
    method: 'server/discover',
    params: { _meta: TASKS_META },
  });
  const body = (await response.json()) as { result: { capabilities: Record<string, unknown> } };
  return body.result.capabilities;
}

async function createTask(ms: number, text: string, apiKey: string = key.key): Promise<string> {
  const created = await callTool(gateway.url, apiKey, 'tasks__slow', { ms, text });
  expect(created.error).toBeUndefined();
  expect(created.result?.['resultType']).toBe('task');
  expect(created.result?.['status']).toBe('working');
  return created.result?.['taskId'] as string;
}

it('tasks:discover — the extension is advertised to a key that may see a task-capable source, not to others', async () => {
  expect(await discoverCapabilities(key.key)).toMatchObject({ extensions: { [TASKS_EXTENSION]: {} } });
  expect(await discoverCapabilities(stranger.key)).toMatchObject({ extensions: { [TASKS_EXTENSION]: {} } });
  expect((await discoverCapabilities(plainOnly.key))['extensions']).toBeUndefined();
});

it('tasks:poll-to-completion — a call that outlives its request: created, polled with tasks/get, completed with its result', async () => {
  const taskId = await createTask(600, 'a');
  expect(taskId).toMatch(/^agwt1\.[A-Za-z0-9_-]+$/);
  // The upstream's own id never reaches the client.
  const [upstreamId] = [...tasks.store.keys()].slice(-1);
  expect(taskId).not.toContain(upstreamId as string);
  const done = await pollTask(gateway.url, key.key, taskId);
  expect(done.error).toBeUndefined();
  expect(done.result).toMatchObject({
    taskId,
    status: 'completed',
    resultType: 'complete',
    result: { resultType: 'complete', content: [{ type: 'text', text: 'done:a' }], isError: false },
  });
});

it('tasks:cancel — tasks/cancel reaches the owning upstream; tasks/get then says cancelled', async () => {
  const taskId = await createTask(30_000, 'b');
  const upstream = [...tasks.store.values()].slice(-1)[0];
  const cancelled = await taskRequest(gateway.url, key.key, 'tasks/cancel', taskId);
  expect(cancelled.error).toBeUndefined();
  expect(cancelled.result).toMatchObject({ resultType: 'complete' });
  expect(upstream?.status).toBe('cancelled');
  const got = await taskRequest(gateway.url, key.key, 'tasks/get', taskId);
  expect(got.result).toMatchObject({ taskId, status: 'cancelled' });
});

it('tasks:other-key-not-found — another key of the workspace and a key of another workspace get not-found for get and cancel', async () => {
  const taskId = await createTask(30_000, 'c');
  const upstream = [...tasks.store.values()].slice(-1)[0];
  const unknown = await taskRequest(gateway.url, key.key, 'tasks/get', 'no-such-task');
  expect(unknown).toMatchObject({ status: 200, error: { code: -32602 } });
  for (const other of [sibling, stranger])
    for (const method of ['tasks/get', 'tasks/cancel', 'tasks/update'] as const) {
      const answer = await taskRequest(gateway.url, other.key, method, taskId);
      expect(answer, `${method}`).toEqual(unknown);
    }
  expect(upstream?.status).toBe('working');
  expect((await taskRequest(gateway.url, key.key, 'tasks/get', taskId)).result).toMatchObject({
    status: 'working',
  });
  await taskRequest(gateway.url, key.key, 'tasks/cancel', taskId);
});

it('tasks:forged-id — forged, tampered, malformed and oversized ids answer exactly like an unknown task', async () => {
  const taskId = await createTask(30_000, 'd');
  const unknown = await taskRequest(gateway.url, key.key, 'tasks/get', 'no-such-task');
  const body = taskId.slice('agwt1.'.length);
  const flipped = body.slice(0, 20) + (body[20] === 'A' ? 'B' : 'A') + body.slice(21);
  const forged = [
    `agwt1.${flipped}`,
    `agwt1.${body.slice(0, -4)}`,
    'agwt1.',
    `agwt1.${Buffer.alloc(64, 7).toString('base64url')}`,
    [...tasks.store.keys()].slice(-1)[0] as string,
    `agwt1.${'A'.repeat(5000)}`,
  ];
  for (const id of forged)
    for (const method of ['tasks/get', 'tasks/cancel'] as const)
      expect(await taskRequest(gateway.url, key.key, method, id), `${method} ${id.slice(0, 30)}`).toEqual(
        unknown,
      );
  await taskRequest(gateway.url, key.key, 'tasks/cancel', taskId);
});

it('tasks:no-task-support — a client asking for a task of a source without tasks gets the complete result', async () => {
  const answer = await callTool(gateway.url, key.key, 'plain__slow', { ms: 50, text: 'e' });
  expect(answer.error).toBeUndefined();
  expect(answer.result).toMatchObject({
    resultType: 'complete',
    content: [{ type: 'text', text: 'sync:e' }],
  });
  // A client that does not declare the extension gets the complete result from a task-capable source too.
  const undeclared = await callTool(gateway.url, key.key, 'tasks__slow', { ms: 50, text: 'f' }, false);
  expect(undeclared.result).toMatchObject({
    resultType: 'complete',
    content: [{ type: 'text', text: 'sync:f' }],
  });
});

it("tasks:result-masked — the result a completed task returns through tasks/get is masked like a direct call's", async () => {
  const secret = fakeCredentials().github_token;
  const direct = await callTool(gateway.url, key.key, 'tasks__slow', { ms: 10, text: secret }, false);
  expect(JSON.stringify(direct.result)).not.toContain(secret);
  expect(JSON.stringify(direct.result)).toContain('[masked:');
  const taskId = await createTask(50, secret);
  const done = await pollTask(gateway.url, key.key, taskId);
  expect(done.result?.['status']).toBe('completed');
  expect(JSON.stringify(done.result)).not.toContain(secret);
  expect(JSON.stringify(done.result)).toContain('[masked:');
});

it("tasks:update-input-required — a task that needs the client's input shows its input requests; tasks/update answers them at the owning upstream and the task completes; another key's update is not found", async () => {
  const created = await callTool(gateway.url, key.key, 'tasks__ask', {});
  expect(created.result?.['status']).toBe('input_required');
  const taskId = created.result?.['taskId'] as string;
  const waiting = await taskRequest(gateway.url, key.key, 'tasks/get', taskId);
  expect(waiting.result).toMatchObject({
    taskId,
    status: 'input_required',
    inputRequests: {
      name: { method: 'elicitation/create', params: { mode: 'form', message: 'Your name?' } },
    },
  });
  const inputResponses = { name: { action: 'accept', content: { name: 'Ada' } } };
  const foreign = await taskRequest(gateway.url, sibling.key, 'tasks/update', taskId, { inputResponses });
  expect(foreign.error).toEqual({ code: -32602, message: 'Failed to retrieve task: Task not found' });
  expect([...tasks.store.values()].at(-1)?.status).toBe('input_required');
  const updated = await taskRequest(gateway.url, key.key, 'tasks/update', taskId, { inputResponses });
  expect(updated.error).toBeUndefined();
  expect(updated.result?.['resultType']).toBe('complete');
  // The upstream got the answer under its own task id.
  const update = tasks.log.filter((r) => r.rpcMethod === 'tasks/update').at(-1);
  expect((update?.body as { params: Record<string, unknown> }).params).toMatchObject({
    taskId: [...tasks.store.keys()].at(-1),
    inputResponses,
  });
  expect(update?.mcpName).toBe([...tasks.store.keys()].at(-1));
  const done = await pollTask(gateway.url, key.key, taskId);
  expect(done.result).toMatchObject({
    status: 'completed',
    result: { content: [{ type: 'text', text: 'hello Ada' }] },
  });
});

it("tasks:listen-notifications — subscriptions/listen with taskIds: only this key's ids are acknowledged; notifications/tasks carries each change of the task until it completes, with its result", async () => {
  // Long enough that the first look (right after the acknowledgement) sees it working, even on a loaded machine.
  const taskId = await createTask(2000, 'heard');
  const foreignId = await createTask(30_000, 'not yours', sibling.key);
  const stream = await openListen(
    gateway.url,
    key.key,
    'watch-1',
    { taskIds: [taskId, foreignId, 'agwt1.forged', 'no-such-task'] },
    { extensions: { [TASKS_EXTENSION]: {} } },
  );
  try {
    expect(stream.status).toBe(200);
    expect(await stream.next()).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: {
        notifications: { taskIds: [taskId] },
        _meta: { 'io.modelcontextprotocol/subscriptionId': 'watch-1' },
      },
    });
    const statuses: string[] = [];
    let last: Record<string, unknown> = {};
    while (statuses.at(-1) !== 'completed') {
      const message = (await stream.next(10_000)) as { method: string; params: Record<string, unknown> };
      expect(message.method).toBe('notifications/tasks');
      expect(message.params['taskId']).toBe(taskId);
      statuses.push(String(message.params['status']));
      last = message.params;
    }
    expect(statuses[0]).toBe('working');
    expect(last).toMatchObject({
      status: 'completed',
      result: { resultType: 'complete', content: [{ type: 'text', text: 'done:heard' }] },
      _meta: { 'io.modelcontextprotocol/subscriptionId': 'watch-1' },
    });
    // Nothing is said of the other key's task.
    expect(JSON.stringify(stream.events)).not.toContain(foreignId);
  } finally {
    stream.close();
    await taskRequest(gateway.url, sibling.key, 'tasks/cancel', foreignId);
  }
  // Without the extension declared, asking for task notifications is the missing-capability error.
  const undeclared = await openListen(gateway.url, key.key, 'watch-2', { taskIds: [taskId] });
  expect(undeclared.status).toBe(400);
  expect(await undeclared.json()).toMatchObject({
    error: { code: -32021, data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } } },
  });
});

it('tasks:ext-tasks-client — the reference requester library runs a task through the gateway to its result and cancels one', async () => {
  const { session, client } = await extTasksSession(gateway.url, key.key);
  try {
    const execution = await session.callTool('tasks__slow', { ms: 300, text: 'x' });
    expect(execution.kind).toBe('task');
    const { outcome } = await execution.settle();
    expect(resultFromTaskOutcome(outcome)).toMatchObject({ content: [{ type: 'text', text: 'done:x' }] });
    const long = await session.callTool('tasks__slow', { ms: 30_000, text: 'y' });
    await long.cancel();
    expect([...tasks.store.values()].slice(-1)[0]?.status).toBe('cancelled');
    await expect(session.task('no-such-task' as never).snapshot()).rejects.toMatchObject({ code: -32602 });
  } finally {
    await session.close();
    await client.close();
  }
});

it("tasks:audit — tasks/get and tasks/cancel are audited by name with their source and tool; another key's attempt too", async () => {
  const taskId = await createTask(30_000, 'z');
  const post = (apiKey: string, method: string) =>
    mcpPost(gateway.url, apiKey, { method, params: { _meta: TASKS_META, taskId } }, { 'mcp-name': taskId });
  expect(await auditRecordOf(gateway.auditPath, await post(key.key, 'tasks/get'))).toMatchObject({
    method: 'tasks/get',
    era: 'modern',
    source: 'tasks',
    target: { kind: 'tool', requested: 'tasks__slow' },
    decision: 'allowed',
    outcome: 'ok',
  });
  const foreign = await auditRecordOf(gateway.auditPath, await post(sibling.key, 'tasks/cancel'));
  expect(foreign).toMatchObject({ method: 'tasks/cancel', error_code: '-32602' });
  expect(foreign.source).toBeUndefined();
  await taskRequest(gateway.url, key.key, 'tasks/cancel', taskId);
});

// Last: it narrows the key's tools for good.
it('tasks:tool-no-longer-visible — a task of a tool the key can no longer see answers like an unknown task', async () => {
  const taskId = await createTask(30_000, 'h');
  const unknown = await taskRequest(gateway.url, key.key, 'tasks/get', 'no-such-task');
  const revision = gateway.gateway.config.current().revision;
  await gateway.writeConfig(document(['plain__*']));
  await gateway.waitForRevision(revision);
  for (const method of ['tasks/get', 'tasks/cancel'] as const)
    expect(await taskRequest(gateway.url, key.key, method, taskId), method).toEqual(unknown);
  expect([...tasks.store.values()].slice(-1)[0]?.status).toBe('working');
});
