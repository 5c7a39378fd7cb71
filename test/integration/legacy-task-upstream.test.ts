// 2025-11-25 experimental tasks of a legacy upstream (issue 43), through the connection the gateway's
// pool makes (UpstreamPool → connectUpstream → the SDK v2 client) and the legacy TaskUpstream
// adapter, against a real SDK v1 task server (task-server-v1.ts): a task-augmented call creates a
// task, tasks/get polls it to its outcome (a tool result, an isError result, or a JSON-RPC error from
// tasks/result), tasks/cancel cancels it, an unknown id is the upstream's -32602, the task lives in
// the pooled session only (another session cannot see it, another replica joining the shared session
// can), and the gateway's trace context reaches the upstream in `_meta`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { principalFor } from '../../gateway/auth/index.js';
import { McpSourceSchema, processSecretReader, validateConfig } from '../../gateway/config/index.js';
import { legacyTaskCreation, legacyTaskUpstream } from '../../gateway/mcp/legacy-task-upstream.js';
import type { McpRequest } from '../../gateway/mcp/mcp-request.js';
import type { TaskCallContext, TaskView } from '../../gateway/mcp/task-upstream.js';
import { createPinoLogger } from '../../gateway/telemetry/index.js';
import {
  classifyUpstreamError,
  UpstreamPool,
  UpstreamRpcError,
  type LegacyTaskCalls,
  type UpstreamConnection,
} from '../../gateway/upstream/index.js';
import type { SessionStore, SharedSession } from '../../gateway/upstream/session-store.js';
import {
  startLegacySessionfulServer,
  type RunningLegacySessionfulServer,
} from '../fixtures/upstreams/legacy-sessionful-server.js';
import { startTaskServerV1, type RunningTaskServerV1 } from '../fixtures/upstreams/task-server-v1.js';
import { until } from '../support/until.js';

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01';

/** The shared session store of a cluster, in memory (the Redis one's twin, one process). */
class MemorySessionStore implements SessionStore {
  private readonly sessions = new Map<string, SharedSession>();
  private queue = Promise.resolve();
  get(key: string): Promise<SharedSession | undefined> {
    return Promise.resolve(this.sessions.get(key));
  }
  put(key: string, session: SharedSession): Promise<void> {
    this.sessions.set(key, session);
    return Promise.resolve();
  }
  forget(key: string, sessionId: string): Promise<void> {
    if (this.sessions.get(key)?.sessionId === sessionId) this.sessions.delete(key);
    return Promise.resolve();
  }
  exclusive(_key: string, _waitMs: number, work: () => Promise<void>): Promise<void> {
    const run = this.queue.then(work);
    this.queue = run.catch(() => undefined);
    return run;
  }
}

let upstream: RunningTaskServerV1;
let plain: RunningLegacySessionfulServer;
const pools: UpstreamPool[] = [];
const shared = new MemorySessionStore();

function poolOf(sessions?: SessionStore): UpstreamPool {
  const pool = new UpstreamPool({
    secrets: processSecretReader({}),
    clientInfo: { name: 'it', version: '1' },
    logger: createPinoLogger({ level: 'silent' }),
    ...(sessions === undefined ? {} : { sessions }),
  });
  pools.push(pool);
  return pool;
}

const source = () => McpSourceSchema.parse({ name: 'lt', transport: 'streamable-http', url: upstream.url });

function legacyRequest(): McpRequest {
  const parsed = validateConfig({
    version: 1,
    workspaces: [{ name: 'w', keys: [{ id: 'AAAAAAAAAA', hash: `sha256:${'a'.repeat(64)}` }] }],
  });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  const workspace = parsed.config.workspaces[0];
  const key = workspace?.keys[0];
  if (workspace === undefined || key === undefined) throw new Error('no key');
  return {
    principal: principalFor(key, workspace),
    era: 'legacy',
    version: '2025-11-25',
    id: 1,
    method: 'tasks/get',
    params: {},
    headers: {},
    signal: new AbortController().signal,
    notify: () => undefined,
  };
}

function context(trace: Record<string, string> = {}): TaskCallContext {
  return { request: legacyRequest(), timeoutMs: 5000, signal: AbortSignal.timeout(5000), trace };
}

const options = (meta?: Record<string, string>) => ({
  signal: AbortSignal.timeout(5000),
  timeoutMs: 5000,
  ...(meta === undefined ? {} : { meta }),
});

function tasksOf(connection: UpstreamConnection): LegacyTaskCalls {
  const calls = connection.legacyTasks;
  if (calls === undefined) throw new Error('the connection has no legacy tasks');
  return calls;
}

/** Creates a task with `tool` and returns its upstream id. */
async function create(calls: LegacyTaskCalls, tool: string, ms: number, text: string): Promise<string> {
  const created = legacyTaskCreation(await calls.callTool(tool, { ms, text }, { ttl: 30_000 }, options()));
  if (created.kind !== 'task') throw new Error(`no task: ${JSON.stringify(created)}`);
  return created.upstreamId;
}

/** Polls the adapter's get until the task is terminal. */
function settle(calls: LegacyTaskCalls, id: string): Promise<TaskView> {
  const adapter = legacyTaskUpstream(calls);
  return until(
    `task ${id} to end`,
    async () => {
      const view = await adapter.get(id, context());
      return view.status === 'working' ? undefined : view;
    },
    5000,
  );
}

beforeAll(async () => {
  upstream = await startTaskServerV1();
  plain = await startLegacySessionfulServer();
});

afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.close()));
  await upstream.close();
  await plain.close();
});

describe('a 2025-11-25 task-capable upstream through the pooled connection', () => {
  it('tasks:legacy-upstream-declared — a legacy upstream declaring tasks.requests.tools.call has legacyTasks and counts as task-capable; one without does not', async () => {
    const connection = await poolOf().get('w', source());
    expect(connection.era).toBe('legacy');
    expect(connection.tasks).toBe(true);
    expect(connection.legacyTasks).toBeDefined();
    const without = await poolOf().get(
      'w',
      McpSourceSchema.parse({ name: 'plain', transport: 'streamable-http', url: plain.url }),
    );
    expect(without.era).toBe('legacy');
    expect(without.tasks).toBe(false);
    expect(without.legacyTasks).toBeUndefined();
  });

  it('tasks:legacy-upstream-poll-to-completion — a task-augmented call creates a task; polling gives the result without the related-task meta, all in one upstream session', async () => {
    const connection = await poolOf().get('w', source());
    const calls = tasksOf(connection);
    const raw = await calls.callTool('slow', { ms: 300, text: 'a' }, { ttl: 30_000 }, options());
    const created = legacyTaskCreation(raw);
    expect(created.kind).toBe('task');
    if (created.kind !== 'task') return;
    expect(created.view).toMatchObject({ status: 'working', ttlMs: 30_000, pollIntervalMs: 100 });
    const view = await settle(calls, created.upstreamId);
    expect(view.status).toBe('completed');
    expect(view.result).toEqual({ content: [{ type: 'text', text: 'done:a' }] });
    expect(view.ttlMs).toBe(30_000);
    const wire = upstream.log.filter(
      (r) => (r.body as { params?: { taskId?: unknown } } | undefined)?.params?.taskId === created.upstreamId,
    );
    expect(wire.map((r) => r.rpcMethod)).toContain('tasks/result');
    const call = upstream.log.find(
      (r) => r.rpcMethod === 'tools/call' && JSON.stringify(r.body).includes('"text":"a"'),
    );
    expect((call?.body as { params: Record<string, unknown> }).params['task']).toEqual({ ttl: 30_000 });
    expect(new Set([call, ...wire].map((r) => r?.sessionId))).toEqual(new Set([connection.sessionId]));
  });

  it('tasks:legacy-upstream-no-ttl — without a ttl the call carries `task: {}`; the upstream keeps its own ttl', async () => {
    const calls = tasksOf(await poolOf().get('w', source()));
    const created = legacyTaskCreation(await calls.callTool('slow', { ms: 50, text: 'n' }, {}, options()));
    expect(created).toMatchObject({ kind: 'task', view: { ttlMs: 60_000 } });
    const call = upstream.log.find(
      (r) => r.rpcMethod === 'tools/call' && JSON.stringify(r.body).includes('"text":"n"'),
    );
    expect((call?.body as { params: Record<string, unknown> }).params['task']).toEqual({});
  });

  it("tasks:legacy-upstream-plain-tool — tools list their execution.taskSupport; a task-augmented call of a tool without task support is the upstream's -32602", async () => {
    const connection = await poolOf().get('w', source());
    const { tools } = await connection.listTools(AbortSignal.timeout(5000));
    const support = Object.fromEntries(tools.map((t) => [t.name, t.execution?.taskSupport]));
    expect(support).toMatchObject({ slow: 'optional', fails: 'optional', echo: 'forbidden' });
    const error = await tasksOf(connection)
      .callTool('echo', { text: 'hi' }, {}, options())
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(UpstreamRpcError);
    expect(error).toMatchObject({ code: -32602, httpStatus: 200 });
    // Without a task, the same tool answers in full.
    expect(await connection.callTool('echo', { text: 'hi' }, options())).toMatchObject({
      content: [{ type: 'text', text: 'hi' }],
    });
  });

  it('tasks:legacy-upstream-iserror-completed — a 2025 task that failed with an isError tool result is completed with that result', async () => {
    const calls = tasksOf(await poolOf().get('w', source()));
    const id = await create(calls, 'fails', 100, 'x');
    const view = await settle(calls, id);
    expect(view.status).toBe('completed');
    expect(view.result).toEqual({ content: [{ type: 'text', text: 'failed:x' }], isError: true });
    expect(view.error).toBeUndefined();
  });

  it('tasks:legacy-upstream-failed-error — a failed task whose tasks/result is a JSON-RPC error is failed with that error', async () => {
    const calls = tasksOf(await poolOf().get('w', source()));
    const id = await create(calls, 'breaks', 100, 'y');
    const view = await settle(calls, id);
    expect(view.status).toBe('failed');
    expect(view.statusMessage).toBe('broke:y');
    expect(view.error).toEqual({
      code: -32603,
      message: expect.stringMatching(/no result stored/) as string,
    });
    expect(view.result).toBeUndefined();
  });

  it('tasks:legacy-upstream-cancel — cancelling a running task cancels it upstream; cancelling it again, or a finished one, is no error', async () => {
    const calls = tasksOf(await poolOf().get('w', source()));
    const adapter = legacyTaskUpstream(calls);
    const running = await create(calls, 'slow', 10_000, 'c');
    await adapter.cancel(running, context());
    expect((await adapter.get(running, context())).status).toBe('cancelled');
    expect(upstream.log.some((r) => r.rpcMethod === 'tasks/cancel')).toBe(true);
    await expect(adapter.cancel(running, context())).resolves.toBeUndefined();
    const finished = await create(calls, 'slow', 10, 'f');
    expect((await settle(calls, finished)).status).toBe('completed');
    const cancels = upstream.log.filter((r) => r.rpcMethod === 'tasks/cancel').length;
    await expect(adapter.cancel(finished, context())).resolves.toBeUndefined();
    // The upstream was asked (and answered -32602 for the terminal task).
    expect(upstream.log.filter((r) => r.rpcMethod === 'tasks/cancel').length).toBe(cancels + 1);
    expect((await adapter.get(finished, context())).status).toBe('completed');
  });

  it("tasks:legacy-upstream-unknown-id — an unknown id is the upstream's -32602 for get, cancel and the raw requests", async () => {
    const calls = tasksOf(await poolOf().get('w', source()));
    const adapter = legacyTaskUpstream(calls);
    for (const attempt of [
      () => adapter.get('no-such-task', context()),
      () => adapter.cancel('no-such-task', context()),
      () => calls.request('tasks/result', 'no-such-task', options()),
    ]) {
      const error = await attempt().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(UpstreamRpcError);
      expect(error).toMatchObject({ code: -32602, httpStatus: 200 });
    }
  });

  it('tasks:legacy-upstream-session-bound — another upstream session cannot see the task; another replica joining the shared session can', async () => {
    const first = await poolOf(shared).get('w', source());
    const id = await create(tasksOf(first), 'slow', 2000, 's');
    // A second connection of its own (no shared store): a second upstream session.
    const other = await poolOf().get('w', source());
    expect(other.sessionId).not.toBe(first.sessionId);
    await expect(legacyTaskUpstream(tasksOf(other)).get(id, context())).rejects.toMatchObject({
      code: -32602,
    });
    // A second replica sharing the session store joins the first one's session.
    const replica = await poolOf(shared).get('w', source());
    expect(replica).not.toBe(first);
    expect(replica.sessionId).toBe(first.sessionId);
    expect(replica.tasks).toBe(true);
    expect((await legacyTaskUpstream(tasksOf(replica)).get(id, context())).status).toBe('working');
  });

  it("tasks:legacy-upstream-trace-meta — the gateway's trace context reaches the upstream in _meta of the call and of tasks/*", async () => {
    const calls = tasksOf(await poolOf().get('w', source()));
    const before = upstream.createMeta.length;
    const created = legacyTaskCreation(
      await calls.callTool('slow', { ms: 50, text: 't' }, {}, options({ traceparent: TRACEPARENT })),
    );
    expect(upstream.createMeta.slice(before)).toEqual([{ traceparent: TRACEPARENT }]);
    if (created.kind !== 'task') throw new Error('no task');
    await legacyTaskUpstream(calls).get(created.upstreamId, context({ traceparent: TRACEPARENT }));
    const get = upstream.log.findLast(
      (r) =>
        r.rpcMethod === 'tasks/get' &&
        (r.body as { params: { taskId: string } }).params.taskId === created.upstreamId,
    );
    expect((get?.body as { params: Record<string, unknown> }).params['_meta']).toEqual({
      traceparent: TRACEPARENT,
    });
  });

  it('tasks:legacy-upstream-deadline — a task request honours its time-out and its signal', async () => {
    const calls = tasksOf(await poolOf().get('w', source()));
    const id = await create(calls, 'slow', 10_000, 'd');
    // tasks/result blocks until the task ends: only the deadline ends these.
    const started = Date.now();
    const timedOut = await calls
      .request('tasks/result', id, { signal: AbortSignal.timeout(5000), timeoutMs: 200 })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(classifyUpstreamError(timedOut)).toBe('upstream_timeout');
    const aborted = new AbortController();
    setTimeout(() => aborted.abort(), 200);
    const cancelled = await calls
      .request('tasks/result', id, { signal: aborted.signal, timeoutMs: 5000 })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(cancelled).toBeInstanceOf(Error);
    expect(cancelled).not.toBeInstanceOf(UpstreamRpcError);
    expect(Date.now() - started).toBeLessThan(3000);
  });
});
