// The pure part of the 2025-11-25 task adapter (issue 43): a 2025 Task read as the 2026 TaskView,
// a CreateTaskResult read as a TaskCreation, the related-task meta stripped, strings bounded, and
// the outcome and cancel rules over an in-memory twin of a legacy upstream's task requests.
import { describe, expect, it } from 'vitest';
import {
  legacyTaskCreation,
  legacyTaskUpstream,
  MAX_TASK_MESSAGE,
  legacyTaskViewOf,
  withoutRelatedTask,
} from '../../../gateway/mcp/legacy-task-upstream.js';
import type { McpRequest } from '../../../gateway/mcp/mcp-request.js';
import type { TaskCallContext } from '../../../gateway/mcp/task-upstream.js';
import {
  UpstreamProtocolError,
  UpstreamRpcError,
  type LegacyTaskCalls,
} from '../../../gateway/upstream/index.js';

const CREATED = '2026-11-29T14:11:34.882Z';
const UPDATED = '2026-11-29T14:11:35.284Z';
const RELATED = 'io.modelcontextprotocol/related-task';

const task = (extra: Record<string, unknown> = {}) => ({
  taskId: 't1',
  status: 'working',
  ttl: 20_000,
  createdAt: CREATED,
  lastUpdatedAt: UPDATED,
  pollInterval: 200,
  ...extra,
});

type Answer = Record<string, unknown> | UpstreamRpcError;

/** A legacy upstream's task requests in memory: answers by method, records what was asked. */
function twin(answers: Partial<Record<'tasks/get' | 'tasks/result' | 'tasks/cancel', Answer>>) {
  const asked: { method: string; taskId: string; meta: unknown }[] = [];
  const calls: LegacyTaskCalls = {
    callTool: () => Promise.reject(new Error('not used')),
    request(method, taskId, options) {
      asked.push({ method, taskId, meta: options.meta });
      const answer = answers[method];
      if (answer === undefined) return Promise.reject(new Error(`unexpected ${method}`));
      return answer instanceof UpstreamRpcError ? Promise.reject(answer) : Promise.resolve(answer);
    },
  };
  return { calls, asked };
}

const context: TaskCallContext = {
  request: {} as McpRequest,
  timeoutMs: 1000,
  signal: new AbortController().signal,
  trace: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01' },
};

const notFound = () =>
  new UpstreamRpcError(-32602, 'Failed to retrieve task: Task not found', undefined, 200);

describe('a 2025 Task as the 2026 TaskView', () => {
  it('tasks:legacy-upstream-view-mapping — ttl and pollInterval become ttlMs and pollIntervalMs; the id and unknown fields are not copied', () => {
    expect(legacyTaskViewOf(task({ statusMessage: 'busy', extra: 'x' }))).toEqual({
      status: 'working',
      statusMessage: 'busy',
      createdAt: CREATED,
      lastUpdatedAt: UPDATED,
      ttlMs: 20_000,
      pollIntervalMs: 200,
    });
    expect(legacyTaskViewOf(task({ ttl: null, pollInterval: undefined }))).toEqual({
      status: 'working',
      createdAt: CREATED,
      lastUpdatedAt: UPDATED,
      ttlMs: null,
    });
    expect(legacyTaskViewOf(task({ lastUpdatedAt: undefined })).lastUpdatedAt).toBe(CREATED);
  });

  it('tasks:legacy-upstream-input-required — input_required shows as working (2025 input requests are not bridged)', () => {
    expect(legacyTaskViewOf(task({ status: 'input_required' })).status).toBe('working');
  });

  it('tasks:legacy-upstream-bounded — status messages are cut; bad status, timestamps and ids are protocol errors', () => {
    const long = 'm'.repeat(MAX_TASK_MESSAGE + 50);
    expect(legacyTaskViewOf(task({ statusMessage: long })).statusMessage).toHaveLength(MAX_TASK_MESSAGE);
    expect(legacyTaskViewOf(task({ ttl: -1, pollInterval: 'soon' }))).not.toHaveProperty('pollIntervalMs');
    expect(legacyTaskViewOf(task({ ttl: -1 })).ttlMs).toBeNull();
    for (const bad of [
      task({ status: 'paused' }),
      task({ createdAt: 'yesterday' }),
      task({ createdAt: `${CREATED}${' '.repeat(80)}` }),
      task({ lastUpdatedAt: 7 }),
    ])
      expect(() => legacyTaskViewOf(bad)).toThrow(UpstreamProtocolError);
    for (const bad of [
      { task: 'x' },
      { task: task({ taskId: 5 }) },
      { task: task({ taskId: '' }) },
      { task: task({ taskId: 'i'.repeat(1025) }) },
      { task: null },
    ])
      expect(() => legacyTaskCreation(bad)).toThrow(UpstreamProtocolError);
  });

  it('tasks:legacy-upstream-creation — a {task} answer is a task with its upstream id; anything else is a complete result', () => {
    expect(legacyTaskCreation({ task: task() })).toEqual({
      kind: 'task',
      upstreamId: 't1',
      view: legacyTaskViewOf(task()),
    });
    const result = { content: [{ type: 'text', text: 'inline' }] };
    expect(legacyTaskCreation(result)).toEqual({ kind: 'result', result });
  });

  it("tasks:legacy-upstream-related-meta — tasks/result's related-task meta is stripped, other meta kept", () => {
    const content = [{ type: 'text', text: 'done' }];
    expect(withoutRelatedTask({ content, _meta: { [RELATED]: { taskId: 't1' } } })).toEqual({ content });
    expect(withoutRelatedTask({ content, _meta: { [RELATED]: { taskId: 't1' }, other: 1 } })).toEqual({
      content,
      _meta: { other: 1 },
    });
  });
});

describe('the adapter over a twin of the upstream', () => {
  it('tasks:legacy-upstream-outcome — completed: the tool result; failed with a result: the isError result, completed; failed with an error: failed', async () => {
    const content = [{ type: 'text', text: 'done' }];
    const done = twin({
      'tasks/get': task({ status: 'completed' }),
      'tasks/result': { content, _meta: { [RELATED]: { taskId: 't1' } } },
    });
    expect(await legacyTaskUpstream(done.calls).get('t1', context)).toMatchObject({
      status: 'completed',
      result: { content },
    });
    expect(done.asked.map((a) => [a.method, a.taskId, a.meta])).toEqual([
      ['tasks/get', 't1', context.trace],
      ['tasks/result', 't1', context.trace],
    ]);
    const failedTool = twin({ 'tasks/get': task({ status: 'failed' }), 'tasks/result': { content } });
    expect(await legacyTaskUpstream(failedTool.calls).get('t1', context)).toMatchObject({
      status: 'completed',
      result: { content, isError: true },
    });
    const broken = twin({
      'tasks/get': task({ status: 'failed' }),
      'tasks/result': new UpstreamRpcError(-32603, 'x'.repeat(5000), { secret: 'internal' }, 200),
    });
    const view = await legacyTaskUpstream(broken.calls).get('t1', context);
    expect(view.status).toBe('failed');
    expect(view.error).toEqual({ code: -32603, message: 'x'.repeat(MAX_TASK_MESSAGE) });
    // A task gone between tasks/get and tasks/result is not found, not failed.
    const gone = twin({ 'tasks/get': task({ status: 'completed' }), 'tasks/result': notFound() });
    await expect(legacyTaskUpstream(gone.calls).get('t1', context)).rejects.toMatchObject({ code: -32602 });
    // Working and cancelled tasks have no outcome to fetch.
    for (const status of ['working', 'cancelled']) {
      const open = twin({ 'tasks/get': task({ status }) });
      expect((await legacyTaskUpstream(open.calls).get('t1', context)).status).toBe(status);
      expect(open.asked.map((a) => a.method)).toEqual(['tasks/get']);
    }
  });

  it("tasks:legacy-upstream-cancel-rules — -32602 for a terminal task is no error; for an unknown task, or a still running one, it stays the upstream's error", async () => {
    const refused = new UpstreamRpcError(
      -32602,
      'Cannot cancel task in terminal status: completed',
      undefined,
      200,
    );
    const terminal = twin({ 'tasks/cancel': refused, 'tasks/get': task({ status: 'completed' }) });
    await expect(legacyTaskUpstream(terminal.calls).cancel('t1', context)).resolves.toBeUndefined();
    const unknown = twin({ 'tasks/cancel': notFound(), 'tasks/get': notFound() });
    await expect(legacyTaskUpstream(unknown.calls).cancel('t1', context)).rejects.toMatchObject({
      code: -32602,
    });
    const odd = twin({ 'tasks/cancel': refused, 'tasks/get': task({ status: 'working' }) });
    await expect(legacyTaskUpstream(odd.calls).cancel('t1', context)).rejects.toBe(refused);
    const other = new UpstreamRpcError(-32603, 'internal', undefined, 200);
    const failing = twin({ 'tasks/cancel': other });
    await expect(legacyTaskUpstream(failing.calls).cancel('t1', context)).rejects.toBe(other);
    expect(failing.asked.map((a) => a.method)).toEqual(['tasks/cancel']);
    await expect(legacyTaskUpstream(failing.calls).update('t1', {}, context)).resolves.toBeUndefined();
    expect(failing.asked).toHaveLength(1);
  });
});
