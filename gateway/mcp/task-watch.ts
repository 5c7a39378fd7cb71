// `notifications/tasks` on a `subscriptions/listen` stream (issue 43, SEP-2663): a 2026 client that
// declared the tasks extension names the task ids it wants to hear about; the gateway honours those
// that open for its key (sealed ids: another key's, a forged or an expired one is left out of the
// acknowledgement exactly like an unknown one) and, since few upstreams push task notifications
// (the SDK v2 server cannot), watches each by asking the owning source for it at the task's poll
// interval (0.5–30 s), sending the DetailedTask (what tasks/get answers: masked, a completed result
// guarded) whenever its status or last update changes, until it ends, disappears, or the stream
// closes. Bounded: at most MAX_WATCHED_TASKS ids per stream, one request in flight per task.
import type { Principal } from '../auth/index.js';
import { RPC } from '../protocol/index.js';
import { modernTaskGet, opensForCaller, type TaskDeps } from './dispatch-tasks.js';
import { McpError } from './jsonrpc.js';
import type { McpRequest } from './mcp-request.js';
import { MAX_SEALED_TASK_ID_CHARS } from './task-id-seal.js';
import { isTaskStatus, isTerminal } from './task-upstream.js';

export const MAX_WATCHED_TASKS = 32;
const MIN_POLL_MS = 500;
const MAX_POLL_MS = 30_000;
/** After an upstream failure, the next look waits this long. */
const RETRY_MS = 5_000;

/** What the watch writes to: the listen stream. */
export interface TaskWatchStream {
  readonly open: boolean;
  send(message: Record<string, unknown>): void;
}

/** The `taskIds` of a listen filter: undefined when absent; an error when not a bounded list of ids. */
export function parseTaskIds(value: unknown): readonly string[] | undefined | McpError {
  if (value === undefined) return undefined;
  if (
    !Array.isArray(value) ||
    value.length > MAX_WATCHED_TASKS ||
    value.some((id) => typeof id !== 'string' || id === '' || id.length > MAX_SEALED_TASK_ID_CHARS)
  )
    return new McpError(
      200,
      RPC.invalidParams,
      `Invalid params: notifications.taskIds must hold at most ${MAX_WATCHED_TASKS} task ids.`,
    );
  return [...new Set(value as string[])];
}

function taskRequest(principal: Principal, taskId: string, meta: unknown): McpRequest {
  return {
    principal,
    era: 'modern',
    version: '2026-07-28',
    id: 0,
    method: 'tasks/get',
    params: { taskId, ...(meta === undefined ? {} : { _meta: meta }) },
    headers: {},
    signal: new AbortController().signal,
    notify: () => undefined,
  };
}

/** Starts watching the ids that open for `principal`; returns them (the acknowledged subset). */
export function watchTasks(
  deps: TaskDeps,
  principal: Principal,
  taskIds: readonly string[],
  listenMeta: unknown,
  stream: TaskWatchStream,
  subscriptionMeta: Record<string, unknown>,
): string[] {
  const honoured = taskIds.filter((id) => opensForCaller(deps, taskRequest(principal, id, listenMeta)));
  for (const id of honoured)
    void watchOne(deps, taskRequest(principal, id, listenMeta), stream, subscriptionMeta);
  return honoured;
}

async function watchOne(
  deps: TaskDeps,
  request: McpRequest,
  stream: TaskWatchStream,
  subscriptionMeta: Record<string, unknown>,
): Promise<void> {
  let last = '';
  let wait = 0;
  for (;;) {
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait).unref());
    if (!stream.open) return;
    let task: Record<string, unknown>;
    try {
      task = await modernTaskGet(deps, request);
    } catch (error) {
      // Gone ("not found", the key lost sight of it): nothing more to say. Anything else: look again later.
      if (error instanceof McpError && error.rpcCode === RPC.invalidParams) return;
      wait = RETRY_MS;
      continue;
    }
    if (!stream.open) return;
    const status = task['status'];
    const seen = `${String(status)}\0${String(task['lastUpdatedAt'])}`;
    if (seen !== last) {
      last = seen;
      stream.send({
        jsonrpc: '2.0',
        method: 'notifications/tasks',
        params: { ...task, _meta: subscriptionMeta },
      });
    }
    if (!isTaskStatus(status) || isTerminal(status)) return;
    const interval = task['pollIntervalMs'];
    wait = Math.min(Math.max(typeof interval === 'number' ? interval : 1000, MIN_POLL_MS), MAX_POLL_MS);
  }
}
