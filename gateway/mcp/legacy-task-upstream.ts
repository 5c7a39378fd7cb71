// The TaskUpstream port (task-upstream.ts) over a 2025-11-25 upstream's experimental tasks (spec
// 2025-11-25 basic/utilities/tasks), read as the 2026 DetailedTask: `ttl`/`pollInterval` become
// `ttlMs`/`pollIntervalMs`; `input_required` shows as `working` (2025 input requests are not
// bridged); a `completed` or `failed` task's outcome comes from tasks/result (it answers at once for
// a terminal task): a tool result makes the task `completed` (2025 counts isError results as
// `failed`, 2026 as completed; a `failed` task's result is marked isError), a JSON-RPC error makes it
// `failed`. There is no tasks/update in 2025. Strings copied from the upstream are bounded.
import {
  UpstreamProtocolError,
  UpstreamRpcError,
  type CallOptions,
  type LegacyTaskCalls,
} from '../upstream/index.js';
import { RPC } from '../protocol/index.js';
import {
  isTaskStatus,
  type TaskCallContext,
  type TaskCreation,
  type TaskUpstream,
  type TaskView,
} from './task-upstream.js';
import { isRecord } from '../platform/is-record.js';

/** The longest task id taken from an upstream (the sealed id carries it). */
export const MAX_UPSTREAM_TASK_ID = 1024;
/** The longest status message or error message kept; longer ones are cut. */
export const MAX_TASK_MESSAGE = 2048;
/** The longest timestamp accepted (an ISO 8601 date-time is about 30 characters). */
const MAX_TIMESTAMP = 64;

const RELATED_TASK = 'io.modelcontextprotocol/related-task';

function bounded(text: string): string {
  return text.length > MAX_TASK_MESSAGE ? text.slice(0, MAX_TASK_MESSAGE) : text;
}

function timestamp(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length > MAX_TIMESTAMP || Number.isNaN(Date.parse(value)))
    throw new UpstreamProtocolError(`the task's ${field} is not a date-time`);
  return value;
}

function milliseconds(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** A 2025 Task (tasks/get, tasks/cancel, or CreateTaskResult.task) as a TaskView without outcome. */
export function legacyTaskViewOf(task: Record<string, unknown>): TaskView {
  const status = task['status'];
  if (!isTaskStatus(status)) throw new UpstreamProtocolError('the task has no known status');
  const createdAt = timestamp(task['createdAt'], 'createdAt');
  const lastUpdatedAt =
    task['lastUpdatedAt'] === undefined ? createdAt : timestamp(task['lastUpdatedAt'], 'lastUpdatedAt');
  const message = task['statusMessage'];
  const pollIntervalMs = milliseconds(task['pollInterval']);
  return {
    // The 2025 input requests travel through tasks/result, which the gateway does not bridge.
    status: status === 'input_required' ? 'working' : status,
    ...(typeof message === 'string' ? { statusMessage: bounded(message) } : {}),
    createdAt,
    lastUpdatedAt,
    // null (or no usable ttl): the upstream sets no limit.
    ttlMs: milliseconds(task['ttl']) ?? null,
    ...(pollIntervalMs === undefined ? {} : { pollIntervalMs }),
  };
}

/** A tasks/result tool result without the related-task `_meta` the 2025 server adds. */
export function withoutRelatedTask(result: Record<string, unknown>): Record<string, unknown> {
  const meta = result['_meta'];
  if (!isRecord(meta) || !(RELATED_TASK in meta)) return result;
  const { [RELATED_TASK]: _related, ...rest } = meta;
  const { _meta: _old, ...body } = result;
  return Object.keys(rest).length === 0 ? body : { ...body, _meta: rest };
}

/** What a task-augmented tools/call of a 2025 upstream came back with. */
export function legacyTaskCreation(raw: Record<string, unknown>): TaskCreation {
  if (raw['task'] === undefined) return { kind: 'result', result: raw };
  const task = raw['task'];
  if (!isRecord(task)) throw new UpstreamProtocolError('the task is not an object');
  const upstreamId = task['taskId'];
  if (typeof upstreamId !== 'string' || upstreamId.length === 0 || upstreamId.length > MAX_UPSTREAM_TASK_ID)
    throw new UpstreamProtocolError('the task has no usable taskId');
  return { kind: 'task', upstreamId, view: legacyTaskViewOf(task) };
}

/** A terminal task's outcome from tasks/result: its tool result, or the upstream's JSON-RPC error.
 * A -32602 there means the task is gone (expired since tasks/get): it stays the caller's error. */
async function withOutcome(
  calls: LegacyTaskCalls,
  upstreamId: string,
  view: TaskView,
  options: CallOptions,
): Promise<TaskView> {
  let result: Record<string, unknown>;
  try {
    result = withoutRelatedTask(await calls.request('tasks/result', upstreamId, options));
  } catch (error) {
    if (!(error instanceof UpstreamRpcError) || error.code === RPC.invalidParams) throw error;
    return { ...view, status: 'failed', error: { code: error.code, message: bounded(error.message) } };
  }
  // A 2025 `failed` task with a tool result failed as a tool: the result says so in 2026.
  const outcome =
    view.status === 'failed' && result['isError'] !== true ? { ...result, isError: true } : result;
  return { ...view, status: 'completed', result: outcome };
}

function callOptions(context: TaskCallContext): CallOptions {
  return { signal: context.signal, timeoutMs: context.timeoutMs, meta: context.trace };
}

export function legacyTaskUpstream(calls: LegacyTaskCalls): TaskUpstream {
  return {
    async get(upstreamId, context) {
      const options = callOptions(context);
      const view = legacyTaskViewOf(await calls.request('tasks/get', upstreamId, options));
      if (view.status !== 'completed' && view.status !== 'failed') return view;
      return withOutcome(calls, upstreamId, view, options);
    },
    async cancel(upstreamId, context) {
      const options = callOptions(context);
      try {
        await calls.request('tasks/cancel', upstreamId, options);
      } catch (error) {
        // The 2025 spec answers -32602 both to an unknown task and to one already terminal; the
        // upstream's own tasks/get tells them apart (an unknown task fails it with its -32602).
        if (!(error instanceof UpstreamRpcError) || error.code !== RPC.invalidParams) throw error;
        const status = legacyTaskViewOf(await calls.request('tasks/get', upstreamId, options)).status;
        if (status !== 'completed' && status !== 'failed' && status !== 'cancelled') throw error;
      }
    },
    update() {
      // 2025 has no tasks/update, and a 2025 task never shows input requests through the gateway.
      return Promise.resolve();
    },
  };
}
