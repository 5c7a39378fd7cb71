// What the gateway asks of a source that runs tasks (issue 43), whatever era the source speaks: a
// 2026 upstream of the tasks extension (SEP-2663: tasks/get shows the result or error of a finished
// task) or a 2025-11-25 upstream of the experimental tasks (the task's result comes from
// tasks/result). Both are read as the 2026 DetailedTask (TaskView), the one form the faces render:
// the 2026 face as it is, the 2025 face as the experimental Task (task-faces.ts). The upstream's own
// task id never leaves the gateway unsealed (task-id-seal.ts).
import type { McpRequest } from './mcp-request.js';

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

const STATUSES: ReadonlySet<string> = new Set([
  'working',
  'input_required',
  'completed',
  'failed',
  'cancelled',
]);
const TERMINAL: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);

export function isTaskStatus(value: unknown): value is TaskStatus {
  return typeof value === 'string' && STATUSES.has(value);
}

export function isTerminal(status: TaskStatus): boolean {
  return TERMINAL.has(status);
}

/** A task as the 2026 extension shows it (SEP-2663 DetailedTask), without its id. */
export interface TaskView {
  readonly status: TaskStatus;
  readonly statusMessage?: string;
  readonly createdAt: string;
  readonly lastUpdatedAt: string;
  /** How long the upstream keeps the task; null: no limit. */
  readonly ttlMs: number | null;
  readonly pollIntervalMs?: number;
  /** `completed`: the tool's result as the upstream gave it (a 2026 CallToolResult; `isError` results
   * are completed too). */
  readonly result?: Record<string, unknown>;
  /** `failed`: the JSON-RPC error object (`code`, `message`, `data?`). */
  readonly error?: Record<string, unknown>;
  /** `input_required`: the 2026 input requests by key (a 2025 upstream's are never bridged). */
  readonly inputRequests?: Record<string, unknown>;
}

/** One task request's context: the client's request (its signal, era and `_meta`), the source's
 * call time-out, and the gateway's trace context for the upstream (SEP-414 `_meta` keys). */
export interface TaskCallContext {
  readonly request: McpRequest;
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
  readonly trace: Readonly<Record<string, string>>;
}

/** The task methods of one connected source, by the upstream's own task id. An unknown id is an
 * UpstreamRpcError -32602 (the caller answers "Task not found"). */
export interface TaskUpstream {
  get(upstreamId: string, context: TaskCallContext): Promise<TaskView>;
  /** Asks the upstream to cancel; cancelling a task that already ended is no error. */
  cancel(upstreamId: string, context: TaskCallContext): Promise<void>;
  /** Answers a task's input requests (2026 `tasks/update`); a 2025 upstream's task has none. */
  update(upstreamId: string, inputResponses: unknown, context: TaskCallContext): Promise<void>;
}

/** What a task-augmented tools/call came back with: a task (its upstream id and state), or the
 * complete result (the upstream chose to answer in full). */
export type TaskCreation =
  | { readonly kind: 'task'; readonly upstreamId: string; readonly view: TaskView }
  | { readonly kind: 'result'; readonly result: Record<string, unknown> };
