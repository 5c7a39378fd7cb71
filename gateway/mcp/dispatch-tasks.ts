// Tasks on the modern face (issue 43, SEP-2663 `io.modelcontextprotocol/tasks`, 2026-07-28 only): a
// task-augmented tools/call goes through the same ladder as any call (dispatch-tools-call.ts) and, when
// the 2026 upstream answers with a CreateTaskResult, its task id is handed out sealed (task-id-seal.ts:
// bound to workspace, key and source). tasks/get, tasks/update and tasks/cancel open it and go to the
// owning source with the upstream's id (2026 upstreams are stateless: any replica can). A task id of
// another key or workspace, a forged, expired or malformed one, one whose source the key can no longer
// see (by its source and tool patterns), and the upstream's own "not found" all answer alike: the spec's -32602 "Task not found". The
// completed result inside tasks/get gets what a direct call's result gets: masking and the response
// guardrails; a failed task's error and every status message are masked.
import { canSeeTool } from '../auth/index.js';
import type { McpSourceConfig } from '../config/index.js';
import { namespacedToolName } from '../discovery/index.js';
import { maskSecretsFor, type GuardrailHooks } from '../governance/index.js';
import { withDeadline } from '../platform/deadline.js';
import { RPC } from '../protocol/index.js';
import { noteAudit } from '../telemetry/audit-context.js';
import { inSpan, upstreamTraceMeta, SpanKind } from '../telemetry/tracing.js';
import {
  UpstreamRpcError,
  withSessionRecovery,
  type BreakerRegistry,
  type UpstreamPool,
} from '../upstream/index.js';
import { encodeMirroredValue } from './header-mirror.js';
import { McpError } from './jsonrpc.js';
import type { McpHandler, McpRequest, McpResult } from './mcp-request.js';
import type { SealedTask, TaskIdSeal } from './task-id-seal.js';
import { guardedResult } from './tools-call-guardrails.js';
import { clientCapabilitiesOf, type PermittedCall } from './tools-call-relay.js';
import { catalogueFailure, upstreamFailure } from './upstream-failure.js';
import { upstreamParams } from './upstream-params.js';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
/** The longest a sealed task id stays valid, and so the longest `ttlMs` the gateway reports: an
 * upstream's unlimited (null) or longer retention is clipped to it. */
export const MAX_TASK_TTL_MS = 24 * 60 * 60 * 1000;

export interface TaskDeps {
  readonly pool: UpstreamPool;
  readonly breakers: BreakerRegistry;
  readonly taskSeal: TaskIdSeal;
  readonly guardrails: GuardrailHooks;
}

/** The spec's answer to an unknown task (SEP-2663 "Error handling"), the same for every reason. */
export function taskNotFound(): McpError {
  return new McpError(200, RPC.invalidParams, 'Failed to retrieve task: Task not found');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The lifetime the gateway honours: the upstream's, clipped to MAX_TASK_TTL_MS. */
function clippedTtl(ttl: unknown): number {
  return typeof ttl === 'number' && Number.isFinite(ttl) && ttl >= 0
    ? Math.min(ttl, MAX_TASK_TTL_MS)
    : MAX_TASK_TTL_MS;
}

/** A CreateTaskResult from the upstream, handed to the client with the task id sealed. Masked like
 * any result by the guardrail step (tools-call-guardrails.ts); the response guardrails judge the
 * task's result when tasks/get returns it. */
export function sealCreatedTask(
  seal: TaskIdSeal,
  request: McpRequest,
  call: PermittedCall,
  result: McpResult,
  now = Date.now(),
): McpResult {
  const upstreamId = result['taskId'];
  // A task for a client that did not declare the extension, or one without a usable id, breaks
  // the protocol (SEP-2663: a server MUST NOT return a task to such a client).
  if (
    !declaresTasks(request) ||
    typeof upstreamId !== 'string' ||
    upstreamId.length === 0 ||
    upstreamId.length > 1024
  )
    throw catalogueFailure('upstream_protocol_error', call.source.name);
  const ttlMs = clippedTtl(result['ttlMs']);
  const taskId = seal.seal({
    workspace: request.principal.workspace.name,
    keyId: request.principal.keyId,
    source: call.source.name,
    upstreamId,
    tool: call.requested,
    upstreamTool: call.tool.upstreamName,
    exp: now + ttlMs,
  });
  // `content: []` is a CallToolResult default some SDKs add to a task; it is no part of one.
  const { content: _sdkDefault, ...task } = result;
  return { ...task, taskId, ttlMs };
}

/** The client declared the tasks extension on this request (2026 per-request capabilities). */
export function declaresTasks(request: McpRequest): boolean {
  if (request.era !== 'modern') return false;
  const extensions = clientCapabilitiesOf(request.params)['extensions'];
  return isRecord(extensions) && isRecord(extensions[TASKS_EXTENSION]);
}

/** tasks/get, tasks/update and tasks/cancel of the modern face. */
export function taskHandlers(deps: TaskDeps): Record<string, McpHandler> {
  return {
    'tasks/get': (request) =>
      taskRequest(deps, request, (task, upstream) => taskView(deps, request, task, upstream)),
    'tasks/update': (request) => taskRequest(deps, request, () => Promise.resolve({})),
    'tasks/cancel': (request) => taskRequest(deps, request, () => Promise.resolve({})),
  };
}

async function taskRequest(
  deps: TaskDeps,
  request: McpRequest,
  answer: (task: SealedTask, upstream: Record<string, unknown>) => Promise<McpResult>,
): Promise<McpResult> {
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
  noteAudit({ source: source.name, target: { kind: 'tool', requested: task.tool } });
  const upstream = await relayTaskRequest(deps, request, source, task);
  return answer(task, upstream);
}

/** The request to the owning source with its own task id, through its breaker, under its call
 * time-out. The upstream's "not found" (and a source that no longer speaks 2026) is ours. */
function relayTaskRequest(
  deps: TaskDeps,
  request: McpRequest,
  source: McpSourceConfig,
  task: SealedTask,
): Promise<Record<string, unknown>> {
  const workspace = request.principal.workspace.name;
  return inSpan(
    `${request.method} ${source.name}`,
    { kind: SpanKind.CLIENT, attributes: { 'mcp.method.name': request.method, 'agw.source': source.name } },
    async () => {
      // Inside the client span: the upstream's trace context names it as parent (SEP-414).
      const trace = upstreamTraceMeta(request.params['_meta']);
      const { name: _name, ...params } = upstreamParams(request, '', trace);
      try {
        return await deps.breakers.run(workspace, source, () =>
          withSessionRecovery(deps.pool, workspace, source, (connection) => {
            const relay = connection.relay;
            if (relay === undefined) throw taskNotFound();
            return withDeadline(request.signal, source.timeouts.callMs, (signal) =>
              relay({
                method: request.method,
                params: { ...params, taskId: task.upstreamId },
                paramHeaders: {},
                nameHeader: encodeMirroredValue(task.upstreamId),
                signal,
                onNotification: () => undefined,
              }),
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

/** The upstream's DetailedTask under the client's task id; a completed task's result is processed
 * like a direct call's (masking, response guardrails) and carries `resultType: "complete"`. */
async function taskView(
  deps: TaskDeps,
  request: McpRequest,
  task: SealedTask,
  upstream: Record<string, unknown>,
): Promise<McpResult> {
  const workspace = request.principal.workspace;
  const { resultType: _rt, _meta: _upstreamMeta, result, error, ...rest } = upstream;
  // The client's (sealed) id after masking: masking must never rewrite it.
  const view: McpResult = {
    ...maskSecretsFor(workspace, rest),
    taskId: request.params['taskId'],
    ttlMs: clippedTtl(upstream['ttlMs']),
  };
  if (upstream['status'] === 'failed' && error !== undefined)
    view['error'] = maskSecretsFor(workspace, error);
  if (upstream['status'] === 'completed' && isRecord(result)) {
    const question = {
      method: 'tools/call',
      principal: request.principal,
      target: { kind: 'tool', source: task.source, name: task.tool, upstreamName: task.upstreamTool },
      signal: request.signal,
    } as const;
    const processed = await guardedResult(deps.guardrails, question, result, task.tool);
    view['result'] = { ...processed, resultType: 'complete' };
  }
  return view;
}
