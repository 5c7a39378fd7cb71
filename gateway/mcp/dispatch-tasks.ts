// The task methods (issue 43), on both faces. The 2026 face (SEP-2663 `io.modelcontextprotocol/tasks`)
// has tasks/get, tasks/update and tasks/cancel; the 2025 face (2025-11-25 experimental tasks) has
// tasks/get, tasks/result and tasks/cancel (no tasks/list: the capability does not offer it). Each
// opens the client's sealed id (task-id-seal.ts: bound to workspace, key and source) and goes to the
// owning source with the upstream's id, through its breaker, session recovery and call time-out,
// whatever era that source speaks (task-upstream.ts); a held result (a 2025 client's task the
// upstream answered in full) comes from the key's task ledger. A task id of another key or
// workspace, a forged, expired or malformed one, one whose tool the key can no longer see, and the
// upstream's own "not found" all answer alike: -32602 "Task not found". A completed task's result
// gets what a direct call's result gets (masking and the response guardrails); errors and status
// messages are masked. Each request links to the span of the tools/call that created the task.
import { canSeeTool } from '../auth/index.js';
import type { McpSourceConfig } from '../config/index.js';
import { namespacedToolName } from '../discovery/index.js';
import { maskSecretsFor, type GuardrailHooks } from '../governance/index.js';
import type { TaskLedger } from '../limits/task-ledger.js';
import { withDeadline } from '../platform/deadline.js';
import { RPC } from '../protocol/index.js';
import { noteAudit } from '../telemetry/audit-context.js';
import { linkRequestTo } from '../telemetry/span-links.js';
import { inSpan, upstreamTraceMeta, SpanKind } from '../telemetry/tracing.js';
import {
  UpstreamRpcError,
  withSessionRecovery,
  type BreakerRegistry,
  type UpstreamConnection,
  type UpstreamPool,
} from '../upstream/index.js';
import { McpError } from './jsonrpc.js';
import type { McpHandler, McpRequest, McpResult } from './mcp-request.js';
import { legacyTaskUpstream } from './legacy-task-upstream.js';
import { modernTaskUpstream } from './modern-task-upstream.js';
import type { SealedTask, TaskIdSeal } from './task-id-seal.js';
import { heldTaskOf, heldView, legacyTask, modernTaskFields, RELATED_TASK } from './task-faces.js';
import { isTerminal, type TaskCallContext, type TaskUpstream, type TaskView } from './task-upstream.js';
import { guardedResult } from './tools-call-guardrails.js';
import { catalogueFailure, upstreamFailure } from './upstream-failure.js';

export { TASKS_EXTENSION } from './modern-task-upstream.js';

export interface TaskDeps {
  readonly pool: UpstreamPool;
  readonly breakers: BreakerRegistry;
  readonly taskSeal: TaskIdSeal;
  readonly guardrails: GuardrailHooks;
  readonly ledger: TaskLedger;
}

/** The spec's answer to an unknown task (SEP-2663 "Error handling"), the same for every reason. */
export function taskNotFound(): McpError {
  return new McpError(200, RPC.invalidParams, 'Failed to retrieve task: Task not found');
}

/** One opened task request: the task, its source, and how to reach it. */
interface OpenTask {
  readonly task: SealedTask;
  readonly source: McpSourceConfig;
}

/** tasks/get, tasks/update and tasks/cancel of the 2026 face. */
export function taskHandlers(deps: TaskDeps): Record<string, McpHandler> {
  return {
    'tasks/get': (request) => modernTaskGet(deps, request),
    'tasks/update': async (request) => {
      const open = openTask(deps, request);
      if (open.task.kind === 'upstream')
        await onSource(deps, request, open, (upstream, context) =>
          upstream.update(open.task.upstreamId, request.params['inputResponses'], context),
        );
      else await heldOf(deps, open.task);
      return {};
    },
    'tasks/cancel': async (request) => {
      const open = openTask(deps, request);
      if (open.task.kind === 'upstream') {
        await onSource(deps, request, open, (upstream, context) =>
          upstream.cancel(open.task.upstreamId, context),
        );
        await deps.ledger.release(open.task, open.task.slot);
      } else await heldOf(deps, open.task);
      return {};
    },
  };
}

/** The 2026 tasks/get answer (also what `notifications/tasks` carries, task-watch.ts). */
export async function modernTaskGet(deps: TaskDeps, request: McpRequest): Promise<McpResult> {
  const open = openTask(deps, request);
  const view = await currentView(deps, request, open);
  return modernView(deps, request, open, view);
}

/** Whether the request's task id opens for its caller and names a source it may see. */
export function opensForCaller(deps: TaskDeps, request: McpRequest): boolean {
  try {
    openTask(deps, request, false);
    return true;
  } catch {
    return false;
  }
}

/** tasks/get, tasks/result and tasks/cancel of the 2025 face (experimental tasks). */
export function legacyTaskHandlers(deps: TaskDeps): Record<string, McpHandler> {
  return {
    'tasks/get': async (request) => {
      const open = openTask(deps, request);
      return legacyTask(clientId(request), await currentView(deps, request, open));
    },
    'tasks/result': async (request) => {
      const open = openTask(deps, request);
      return taskResult(deps, request, open, await settledView(deps, request, open));
    },
    'tasks/cancel': async (request) => {
      const open = openTask(deps, request);
      const before = await currentView(deps, request, open);
      // The 2025 rule: a task that already ended cannot be cancelled.
      if (isTerminal(before.status))
        throw new McpError(200, RPC.invalidParams, `Cannot cancel task in terminal status: ${before.status}`);
      await onSource(deps, request, open, (upstream, context) =>
        upstream.cancel(open.task.upstreamId, context),
      );
      await deps.ledger.release(open.task, open.task.slot);
      return legacyTask(clientId(request), await currentView(deps, request, open));
    },
  };
}

function clientId(request: McpRequest): string {
  return request.params['taskId'] as string;
}

/** The sealed id opened for this caller, its source visible to it; "not found" otherwise. */
function openTask(deps: TaskDeps, request: McpRequest, note = true): OpenTask {
  const { principal } = request;
  const task = deps.taskSeal.open(
    request.params['taskId'],
    { workspace: principal.workspace.name, keyId: principal.keyId },
    Date.now(),
  );
  const source =
    task === undefined ||
    !canSeeTool(principal, task.source, namespacedToolName(task.source, task.upstreamTool))
      ? undefined
      : principal.workspace.mcpSources.find((s) => s.name === task.source);
  if (task === undefined || source === undefined) throw taskNotFound();
  if (note) {
    noteAudit({ source: source.name, target: { kind: 'tool', requested: task.tool } });
    linkRequestTo(task.link);
  }
  return { task, source };
}

async function heldOf(deps: TaskDeps, task: SealedTask): Promise<TaskView> {
  const held = heldTaskOf(await deps.ledger.held(task, task.slot));
  if (held === undefined) throw taskNotFound();
  return heldView(held);
}

/** The task now: held, or from its upstream. An end seen gives its ledger place back. */
async function currentView(deps: TaskDeps, request: McpRequest, open: OpenTask): Promise<TaskView> {
  if (open.task.kind === 'held') return heldOf(deps, open.task);
  const view = await onSource(deps, request, open, (upstream, context) =>
    upstream.get(open.task.upstreamId, context),
  );
  if (isTerminal(view.status)) await deps.ledger.release(open.task, open.task.slot);
  return view;
}

/** The task once it has ended (2025 tasks/result blocks until then), within the source's call
 * time-out: polled at the upstream's interval (0.1–5 s). */
async function settledView(deps: TaskDeps, request: McpRequest, open: OpenTask): Promise<TaskView> {
  const deadline = Date.now() + open.source.timeouts.callMs;
  for (;;) {
    const view = await currentView(deps, request, open);
    if (isTerminal(view.status)) return view;
    const wait = Math.min(Math.max(view.pollIntervalMs ?? 500, 100), 5000);
    if (Date.now() + wait > deadline || request.signal.aborted)
      throw catalogueFailure('upstream_timeout', open.source.name);
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

/** The 2025 tasks/result answer: the tool's result (guarded like a direct call's) with the task
 * named in `_meta`; a failed task's error; a cancelled task has no result. */
async function taskResult(
  deps: TaskDeps,
  request: McpRequest,
  open: OpenTask,
  view: TaskView,
): Promise<McpResult> {
  const workspace = request.principal.workspace;
  if (view.status === 'completed' && view.result !== undefined) {
    const result = await deliveredResult(deps, request, open, view.result);
    const meta = typeof result['_meta'] === 'object' && result['_meta'] !== null ? result['_meta'] : {};
    return { ...result, _meta: { ...meta, [RELATED_TASK]: { taskId: clientId(request) } } };
  }
  if (view.status === 'failed') {
    const code = view.error?.['code'];
    const message = view.error?.['message'];
    throw new McpError(
      200,
      typeof code === 'number' && Number.isInteger(code) ? code : RPC.internalError,
      typeof message === 'string'
        ? String(maskSecretsFor(workspace, message.slice(0, 4096)))
        : 'The task failed.',
      { class: 'tool_execution', source: open.source.name },
      'tool_execution',
    );
  }
  throw new McpError(200, RPC.internalError, 'The task was cancelled; it has no result.');
}

/** A completed task's result as the client gets it: a held one was guarded when it was made; an
 * upstream's passes masking and the response guardrails like a direct call's. */
function deliveredResult(
  deps: TaskDeps,
  request: McpRequest,
  open: OpenTask,
  result: Record<string, unknown>,
): Promise<McpResult> {
  if (open.task.kind === 'held') return Promise.resolve(result);
  const question = {
    method: 'tools/call',
    principal: request.principal,
    target: {
      kind: 'tool',
      source: open.task.source,
      name: open.task.tool,
      upstreamName: open.task.upstreamTool,
    },
    signal: request.signal,
  } as const;
  return guardedResult(deps.guardrails, question, result, open.task.tool);
}

/** The 2026 DetailedTask under the client's id: status message masked, a completed task's result
 * processed like a direct call's (`resultType: "complete"` added), a failed task's error masked. */
async function modernView(
  deps: TaskDeps,
  request: McpRequest,
  open: OpenTask,
  view: TaskView,
): Promise<McpResult> {
  const workspace = request.principal.workspace;
  const fields = modernTaskFields(clientId(request), view);
  // The client's (sealed) id after masking: masking must never rewrite it.
  const out: McpResult = { ...maskSecretsFor(workspace, fields), taskId: clientId(request) };
  if (view.status === 'failed' && view.error !== undefined)
    out['error'] = maskSecretsFor(workspace, view.error);
  if (view.status === 'completed' && view.result !== undefined)
    out['result'] = { ...(await deliveredResult(deps, request, open, view.result)), resultType: 'complete' };
  return out;
}

/** The task methods of a connection: a 2026 upstream's over the relay, a 2025 upstream's over its
 * session; none: the task cannot be there. */
function taskUpstreamOf(connection: UpstreamConnection): TaskUpstream | undefined {
  if (connection.relay !== undefined) return modernTaskUpstream(connection.relay);
  if (connection.legacyTasks !== undefined) return legacyTaskUpstream(connection.legacyTasks);
  return undefined;
}

/** A request to the owning source, as a client span, through its breaker and session recovery,
 * under its call time-out. The upstream's "not found" (and a source that no longer runs tasks) is ours. */
function onSource<T>(
  deps: TaskDeps,
  request: McpRequest,
  { source }: OpenTask,
  work: (upstream: TaskUpstream, context: TaskCallContext) => Promise<T>,
): Promise<T> {
  const workspace = request.principal.workspace.name;
  return inSpan(
    `${request.method} ${source.name}`,
    { kind: SpanKind.CLIENT, attributes: { 'mcp.method.name': request.method, 'agw.source': source.name } },
    async () => {
      // Inside the client span: the upstream's trace context names it as parent (SEP-414).
      const trace = upstreamTraceMeta(request.params['_meta']);
      try {
        return await deps.breakers.run(workspace, source, () =>
          withSessionRecovery(deps.pool, workspace, source, (connection) => {
            const upstream = taskUpstreamOf(connection);
            if (upstream === undefined) throw taskNotFound();
            return withDeadline(request.signal, source.timeouts.callMs, (signal) =>
              work(upstream, { request, timeoutMs: source.timeouts.callMs, signal, trace }),
            );
          }),
        );
      } catch (error) {
        if (error instanceof UpstreamRpcError && error.code === RPC.invalidParams) throw taskNotFound();
        throw upstreamFailure(error, source.name);
      }
    },
  );
}
