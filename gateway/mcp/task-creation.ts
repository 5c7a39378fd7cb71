// Tasks made by tools/call (issue 43): whether the client asks for one (a 2026 client declares the
// tasks extension on the request; a 2025 client sends `params.task`), the key's bound on tasks it
// holds (a place in the task ledger, taken before the upstream is called, kept until the task's
// expiry or its end is seen), the sealed id handed out (bound to workspace, key and source; it
// carries the ledger place and the creating span for later links), and each face's form of it.
// When the upstream answers in full: a 2026 client gets the result (the spec lets a server decide),
// a 2025 client that asked for a task gets a finished task whose result the gateway holds for
// `server.tasks.heldTtlMs` (bounded in size), so its tasks/get and tasks/result find it.
import { randomUUID } from 'node:crypto';
import { catalogueEntry } from '../errors/index.js';
import type { TaskLedger } from '../limits/task-ledger.js';
import { currentTraceparent } from '../telemetry/span-links.js';
import { McpError } from './jsonrpc.js';
import type { McpRequest, McpResult } from './mcp-request.js';
import { taskViewOf } from './modern-task-upstream.js';
import type { TaskIdSeal } from './task-id-seal.js';
import { clippedTtl, legacyTask, modernTaskFields, type HeldTask } from './task-faces.js';
import type { PermittedCall } from './tools-call-relay.js';
import { asksForTask } from './task-asks.js';
import { catalogueFailure } from './upstream-failure.js';

export interface TaskLimits {
  /** Tasks (and held results) a key may hold at once. */
  readonly maxPerKey: number;
  /** A complete result larger than this (JSON bytes) is not held: the call is refused. */
  readonly heldResultMaxBytes: number;
  /** How long a held result is kept. */
  readonly heldTtlMs: number;
}

export interface TaskCreationDeps {
  readonly taskSeal: TaskIdSeal;
  readonly ledger: TaskLedger;
  /** `server.tasks`, read per call (hot reload). */
  readonly taskLimits: () => TaskLimits;
}

/** The key holds as many tasks as it may: answered like a rate limit. */
function taskCapReached(limit: number): McpError {
  const retryAfterS = 5;
  return new McpError(
    429,
    catalogueEntry('rate_limited').jsonRpcCode,
    `This key holds as many tasks as it may (${limit}); let one finish or expire, or retry after ${retryAfterS} s.`,
    {
      code: 'rate_limited',
      class: 'request',
      retryAfterSeconds: retryAfterS,
      limit: { maxTasksPerKey: limit },
    },
    'request',
    { 'retry-after': String(retryAfterS) },
  );
}

/** Runs a permitted tools/call (`run`: guardrails and relay) as the client asked: a task-asking
 * call takes a place in the key's ledger first and comes back as a sealed task. */
export async function callWithTasks(
  deps: TaskCreationDeps,
  request: McpRequest,
  call: PermittedCall,
  run: () => Promise<McpResult>,
): Promise<McpResult> {
  if (!asksForTask(request)) {
    const result = await run();
    // A server MUST NOT return a task to a client that did not ask for one (SEP-2663).
    if (result['resultType'] === 'task') throw catalogueFailure('upstream_protocol_error', call.source.name);
    return result;
  }
  const owner = { workspace: request.principal.workspace.name, keyId: request.principal.keyId };
  const slot = randomUUID();
  // Until the upstream answers; a task moves it to its expiry.
  const reserved = await deps.ledger.reserve(
    owner,
    slot,
    Date.now() + call.source.timeouts.callMs + 10_000,
    deps.taskLimits().maxPerKey,
  );
  if (!reserved) throw taskCapReached(deps.taskLimits().maxPerKey);
  const link = currentTraceparent();
  let result: McpResult;
  try {
    result = await run();
  } catch (error) {
    await deps.ledger.release(owner, slot);
    throw error;
  }
  if (result['resultType'] === 'task') return sealedTask(deps, request, call, result, slot, link);
  if (request.era === 'modern' || result['resultType'] === 'input_required') {
    await deps.ledger.release(owner, slot);
    return result;
  }
  return heldTask(deps, request, call, result, slot, link);
}

/** The upstream's CreateTaskResult under a sealed id, in the face's form. */
async function sealedTask(
  deps: TaskCreationDeps,
  request: McpRequest,
  call: PermittedCall,
  result: McpResult,
  slot: string,
  link: string,
): Promise<McpResult> {
  const owner = { workspace: request.principal.workspace.name, keyId: request.principal.keyId };
  const upstreamId = result['taskId'];
  const view = taskViewOf(result);
  if (
    typeof upstreamId !== 'string' ||
    upstreamId.length === 0 ||
    upstreamId.length > 1024 ||
    view === undefined
  ) {
    await deps.ledger.release(owner, slot);
    throw catalogueFailure('upstream_protocol_error', call.source.name);
  }
  const exp = Date.now() + clippedTtl(view.ttlMs);
  await deps.ledger.extend(owner, slot, exp);
  const taskId = deps.taskSeal.seal({
    ...owner,
    source: call.source.name,
    kind: 'upstream',
    upstreamId,
    slot,
    link,
    tool: call.requested,
    upstreamTool: call.tool.upstreamName,
    exp,
  });
  return request.era === 'modern'
    ? { resultType: 'task', ...modernTaskFields(taskId, view) }
    : { task: legacyTask(taskId, view) };
}

/** A complete result a 2025 client asked to get as a task: held, and handed out as a finished one. */
async function heldTask(
  deps: TaskCreationDeps,
  request: McpRequest,
  call: PermittedCall,
  result: McpResult,
  slot: string,
  link: string,
): Promise<McpResult> {
  const owner = { workspace: request.principal.workspace.name, keyId: request.principal.keyId };
  const { heldTtlMs, heldResultMaxBytes } = deps.taskLimits();
  if (Buffer.byteLength(JSON.stringify(result), 'utf8') > heldResultMaxBytes) {
    await deps.ledger.release(owner, slot);
    const entry = catalogueEntry('upstream_response_too_large');
    throw new McpError(
      200,
      entry.jsonRpcCode,
      `The tool answered in full, with a result larger than the gateway holds for a task (server.tasks.heldResultMaxBytes, ${heldResultMaxBytes} bytes); call it without a task.`,
      {
        code: 'upstream_response_too_large',
        class: entry.errorClass,
        source: call.source.name,
        limit: { heldResultMaxBytes },
      },
      entry.errorClass,
    );
  }
  const createdAt = new Date().toISOString();
  const exp = Date.now() + heldTtlMs;
  const held: HeldTask = { result, createdAt, ttlMs: heldTtlMs };
  await deps.ledger.hold(owner, slot, { ...held }, exp);
  const taskId = deps.taskSeal.seal({
    ...owner,
    source: call.source.name,
    kind: 'held',
    upstreamId: '',
    slot,
    link,
    tool: call.requested,
    upstreamTool: call.tool.upstreamName,
    exp,
  });
  return {
    task: legacyTask(taskId, {
      status: 'completed',
      createdAt,
      lastUpdatedAt: createdAt,
      ttlMs: heldTtlMs,
      result,
    }),
  };
}
