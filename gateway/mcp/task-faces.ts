// How a task looks on each face (issue 43): the 2026 face shows the DetailedTask (SEP-2663), the
// 2025 face the experimental Task (2025-11-25: `ttl`/`pollInterval`, no result; the result comes
// from tasks/result). Both carry the client's sealed id, never the upstream's, and the gateway's
// ttl: the upstream's clipped to the longest a sealed id lives. A tool result with `isError` is a
// `completed` task in 2026 and a `failed` one in 2025; a 2026 `input_required` is `working` to a
// 2025 client (its input requests are not bridged to the 2025 form).
import type { TaskView } from './task-upstream.js';

/** The longest a sealed task id stays valid, and so the longest ttl the gateway reports: an
 * upstream's unlimited (null) or longer retention is clipped to it. */
export const MAX_TASK_TTL_MS = 24 * 60 * 60 * 1000;

/** The 2025 meta key naming the task a message belongs to. */
export const RELATED_TASK = 'io.modelcontextprotocol/related-task';

/** The lifetime the gateway honours: the upstream's, clipped to MAX_TASK_TTL_MS. */
export function clippedTtl(ttl: unknown): number {
  return typeof ttl === 'number' && Number.isFinite(ttl) && ttl >= 0
    ? Math.min(ttl, MAX_TASK_TTL_MS)
    : MAX_TASK_TTL_MS;
}

/** The status a 2025 client sees. */
export function legacyStatus(view: TaskView): string {
  if (view.status === 'input_required') return 'working';
  if (view.status === 'completed' && view.result?.['isError'] === true) return 'failed';
  return view.status;
}

/** The 2025 Task (tasks/get, tasks/cancel, and inside a CreateTaskResult's `task`). */
export function legacyTask(taskId: string, view: TaskView): Record<string, unknown> {
  return {
    taskId,
    status: legacyStatus(view),
    ...(view.statusMessage === undefined ? {} : { statusMessage: view.statusMessage }),
    createdAt: view.createdAt,
    lastUpdatedAt: view.lastUpdatedAt,
    ttl: clippedTtl(view.ttlMs),
    ...(view.pollIntervalMs === undefined ? {} : { pollInterval: view.pollIntervalMs }),
  };
}

/** The task fields of a 2026 DetailedTask or CreateTaskResult (result and error added by the caller). */
export function modernTaskFields(taskId: string, view: TaskView): Record<string, unknown> {
  return {
    taskId,
    status: view.status,
    ...(view.statusMessage === undefined ? {} : { statusMessage: view.statusMessage }),
    createdAt: view.createdAt,
    lastUpdatedAt: view.lastUpdatedAt,
    ttlMs: clippedTtl(view.ttlMs),
    ...(view.pollIntervalMs === undefined ? {} : { pollIntervalMs: view.pollIntervalMs }),
    ...(view.inputRequests === undefined ? {} : { inputRequests: view.inputRequests }),
  };
}

/** What the gateway keeps for a held task (a complete result a 2025 client asked to get as a task). */
export interface HeldTask {
  readonly result: Record<string, unknown>;
  readonly createdAt: string;
  readonly ttlMs: number;
}

export function heldView(held: HeldTask): TaskView {
  return {
    status: 'completed',
    createdAt: held.createdAt,
    lastUpdatedAt: held.createdAt,
    ttlMs: held.ttlMs,
    result: held.result,
  };
}

export function heldTaskOf(value: Record<string, unknown> | undefined): HeldTask | undefined {
  if (value === undefined) return undefined;
  const { result, createdAt, ttlMs } = value;
  if (typeof result !== 'object' || result === null || Array.isArray(result)) return undefined;
  if (typeof createdAt !== 'string' || typeof ttlMs !== 'number') return undefined;
  return { result: result as Record<string, unknown>, createdAt, ttlMs };
}
