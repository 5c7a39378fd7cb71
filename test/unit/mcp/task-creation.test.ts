// Task creation around tools/call (issue 43), with the in-memory ledger: whether a request asks for
// a task in each era; the key's bound (a place taken before the call, given back when the call
// fails or a 2026 client is answered in full); a 2025 client's full answer held as a finished task
// (and refused when larger than the gateway holds); the faces' forms of a task; tools' taskSupport
// on the 2025 face.
import { describe, expect, it } from 'vitest';
import { principalFor } from '../../../gateway/auth/index.js';
import { validateConfig } from '../../../gateway/config/index.js';
import { MemoryTaskLedger } from '../../../gateway/limits/task-ledger.js';
import { withLegacyTaskSupport } from '../../../gateway/mcp/dispatch-tools-list.js';
import { McpError } from '../../../gateway/mcp/jsonrpc.js';
import type { McpRequest } from '../../../gateway/mcp/mcp-request.js';
import { asksForTask } from '../../../gateway/mcp/task-asks.js';
import { callWithTasks, type TaskLimits } from '../../../gateway/mcp/task-creation.js';
import { clippedTtl, legacyStatus, legacyTask, MAX_TASK_TTL_MS } from '../../../gateway/mcp/task-faces.js';
import { TaskIdSeal } from '../../../gateway/mcp/task-id-seal.js';
import type { PermittedCall } from '../../../gateway/mcp/tools-call-relay.js';

const TASKS = 'io.modelcontextprotocol/tasks';
const CREATED = '2026-11-29T10:00:00.000Z';

function requestFor(era: 'modern' | 'legacy', params: Record<string, unknown>): McpRequest {
  const parsed = validateConfig({
    version: 1,
    workspaces: [{ name: 'acme', keys: [{ id: 'AAAAAAAAAA', hash: `sha256:${'a'.repeat(64)}` }] }],
  });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  const workspace = parsed.config.workspaces[0];
  const key = workspace?.keys[0];
  if (workspace === undefined || key === undefined) throw new Error('no key');
  return {
    principal: principalFor(key, workspace),
    era,
    version: era === 'modern' ? '2026-07-28' : '2025-11-25',
    id: 1,
    method: 'tools/call',
    params: { name: 'jobs__run', ...params },
    headers: {},
    signal: new AbortController().signal,
    notify: () => undefined,
  };
}

const modernAsking = () =>
  requestFor('modern', {
    _meta: { 'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } } },
  });
const legacyAsking = () => requestFor('legacy', { task: { ttl: 5000 } });

const call = {
  source: { name: 'jobs', timeouts: { callMs: 1000 } },
  tool: { name: 'jobs__run', upstreamName: 'run' },
  requested: 'jobs__run',
  args: {},
} as unknown as PermittedCall;

const owner = { workspace: 'acme', keyId: 'AAAAAAAAAA' };
const full = { content: [{ type: 'text', text: 'done' }] };
const upstreamTask = {
  resultType: 'task',
  taskId: 'upstream-1',
  status: 'working',
  createdAt: CREATED,
  lastUpdatedAt: CREATED,
  ttlMs: 60_000,
  pollIntervalMs: 250,
};

function deps(limits: Partial<TaskLimits> = {}) {
  const ledger = new MemoryTaskLedger();
  const taskSeal = new TaskIdSeal();
  const taskLimits = { maxPerKey: 2, heldResultMaxBytes: 1024, heldTtlMs: 60_000, ...limits };
  return { ledger, taskSeal, taskLimits: () => taskLimits };
}

/** How many more places the key may take (reserves and releases probes). */
async function freePlaces(ledger: MemoryTaskLedger, max = 2): Promise<number> {
  let free = 0;
  const probes: string[] = [];
  while (free < max + 1 && (await ledger.reserve(owner, `probe-${free}`, Date.now() + 1000, max))) {
    probes.push(`probe-${free}`);
    free += 1;
  }
  for (const probe of probes) await ledger.release(owner, probe);
  return free;
}

describe('asking for a task', () => {
  it('tasks:asks-per-era — the 2026 extension declared on the request, or a 2025 params.task; not the other era’s form', () => {
    expect(asksForTask(modernAsking())).toBe(true);
    expect(asksForTask(legacyAsking())).toBe(true);
    expect(asksForTask(requestFor('modern', { task: {} }))).toBe(false);
    expect(asksForTask(requestFor('legacy', {}))).toBe(false);
    expect(asksForTask(requestFor('legacy', { task: 'yes' }))).toBe(false);
  });
});

describe('task creation', () => {
  it('tasks:creation-sealed — an upstream task comes back under a sealed id in each face’s form, its place kept', async () => {
    const d = deps();
    const modern = await callWithTasks(d, modernAsking(), call, () => Promise.resolve({ ...upstreamTask }));
    expect(modern).toMatchObject({
      resultType: 'task',
      status: 'working',
      ttlMs: 60_000,
      pollIntervalMs: 250,
    });
    expect(String(modern['taskId'])).toMatch(/^agwt1\./);
    expect(JSON.stringify(modern)).not.toContain('upstream-1');
    const sealed = d.taskSeal.open(modern['taskId'], owner, Date.now());
    expect(sealed).toMatchObject({
      kind: 'upstream',
      upstreamId: 'upstream-1',
      source: 'jobs',
      tool: 'jobs__run',
    });
    const legacy = await callWithTasks(d, legacyAsking(), call, () => Promise.resolve({ ...upstreamTask }));
    expect(legacy['task']).toMatchObject({ status: 'working', ttl: 60_000, pollInterval: 250 });
    expect(await freePlaces(d.ledger)).toBe(0);
  });

  it('tasks:creation-bound — past the bound a task-asking call is refused before the upstream is called; a plain call is not counted', async () => {
    const d = deps({ maxPerKey: 1 });
    await callWithTasks(d, modernAsking(), call, () => Promise.resolve({ ...upstreamTask }));
    let called = false;
    const refused = await callWithTasks(d, modernAsking(), call, () => {
      called = true;
      return Promise.resolve({ ...upstreamTask });
    }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(McpError);
    expect((refused as McpError).httpStatus).toBe(429);
    expect((refused as McpError).data).toMatchObject({ code: 'rate_limited', limit: { maxTasksPerKey: 1 } });
    expect(called).toBe(false);
    expect(await callWithTasks(d, requestFor('modern', {}), call, () => Promise.resolve(full))).toEqual(full);
  });

  it('tasks:creation-release — a failed call and a 2026 client’s full answer give the place back', async () => {
    const d = deps();
    await expect(
      callWithTasks(d, modernAsking(), call, () => Promise.reject(new Error('down'))),
    ).rejects.toThrow('down');
    expect(await callWithTasks(d, modernAsking(), call, () => Promise.resolve(full))).toEqual(full);
    expect(await freePlaces(d.ledger)).toBe(2);
  });

  it('tasks:creation-held — a 2025 client’s full answer becomes a finished task holding the result, isError as failed; too large is refused', async () => {
    const d = deps();
    const held = await callWithTasks(d, legacyAsking(), call, () => Promise.resolve(full));
    const task = held['task'] as { taskId: string; status: string; ttl: number };
    expect(task).toMatchObject({ status: 'completed', ttl: 60_000 });
    const sealed = d.taskSeal.open(task.taskId, owner, Date.now());
    expect(sealed?.kind).toBe('held');
    expect(await d.ledger.held(owner, sealed?.slot as string)).toMatchObject({ result: full });
    const failed = await callWithTasks(d, legacyAsking(), call, () =>
      Promise.resolve({ ...full, isError: true }),
    );
    expect((failed['task'] as { status: string }).status).toBe('failed');
    const big = { content: [{ type: 'text', text: 'x'.repeat(2000) }] };
    const tooLarge = await callWithTasks(deps(), legacyAsking(), call, () => Promise.resolve(big)).catch(
      (error: unknown) => error,
    );
    expect((tooLarge as McpError).data).toMatchObject({
      code: 'upstream_response_too_large',
      limit: { heldResultMaxBytes: 1024 },
    });
  });

  it('tasks:creation-unasked-task — a task answered to a call that did not ask for one is a protocol error', async () => {
    const error = await callWithTasks(deps(), requestFor('modern', {}), call, () =>
      Promise.resolve({ ...upstreamTask }),
    ).catch((e: unknown) => e);
    expect((error as McpError).data).toMatchObject({ code: 'upstream_protocol_error', source: 'jobs' });
  });
});

describe('task faces', () => {
  it('tasks:faces — 2025 statuses and fields; ttl clipped to the sealed id’s life', () => {
    const view = { status: 'completed', createdAt: CREATED, lastUpdatedAt: CREATED, ttlMs: null } as const;
    expect(legacyStatus({ ...view, result: { isError: true } })).toBe('failed');
    expect(legacyStatus({ ...view, result: {} })).toBe('completed');
    expect(legacyStatus({ ...view, status: 'input_required' })).toBe('working');
    expect(legacyTask('id', { ...view, pollIntervalMs: 5 })).toEqual({
      taskId: 'id',
      status: 'completed',
      createdAt: CREATED,
      lastUpdatedAt: CREATED,
      ttl: MAX_TASK_TTL_MS,
      pollInterval: 5,
    });
    expect(clippedTtl(10 * MAX_TASK_TTL_MS)).toBe(MAX_TASK_TTL_MS);
    expect(clippedTtl(-1)).toBe(MAX_TASK_TTL_MS);
    expect(clippedTtl(1000)).toBe(1000);
  });

  it('tasks:legacy-task-support — on the 2025 face a task source’s tool may run as a task (its upstream’s word kept), any other tool may not', () => {
    expect(withLegacyTaskSupport({ name: 't' }, true)).toEqual({
      name: 't',
      execution: { taskSupport: 'optional' },
    });
    expect(withLegacyTaskSupport({ name: 't', execution: { taskSupport: 'required' } }, true)).toEqual({
      name: 't',
      execution: { taskSupport: 'required' },
    });
    expect(withLegacyTaskSupport({ name: 't', execution: { taskSupport: 'optional', x: 1 } }, false)).toEqual(
      {
        name: 't',
        execution: { x: 1 },
      },
    );
    expect(withLegacyTaskSupport({ name: 't' }, false)).toEqual({ name: 't' });
  });
});
