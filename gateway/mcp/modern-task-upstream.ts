// The TaskUpstream of a 2026-07-28 upstream of the tasks extension (issue 43, SEP-2663): tasks/get,
// tasks/update and tasks/cancel over the byte-faithful relay, with the upstream's own task id in the
// params and in `Mcp-Name`, and the client's 2026 envelope (a 2025 client's request gets the
// gateway's, declaring the extension: the upstream answers task methods only to a client that did).
// The upstream's DetailedTask is read into the TaskView, field by field: nothing else passes.
import { GatewayError } from '../errors/index.js';
import { META } from '../protocol/index.js';
import type { Relay } from '../upstream/index.js';
import { encodeMirroredValue } from './header-mirror.js';
import type { McpRequest } from './mcp-request.js';
import { isTaskStatus, type TaskCallContext, type TaskUpstream, type TaskView } from './task-upstream.js';
import { TASKS_EXTENSION, upstreamParams } from './upstream-params.js';
import { isRecord } from '../platform/is-record.js';

export { TASKS_EXTENSION };

/** Longest status message or timestamp copied from an upstream. */
const MAX_TEXT = 4096;

/** The upstream's params for a task request: the 2026 envelope with the tasks extension declared. */
export function taskEnvelope(
  request: McpRequest,
  trace: Readonly<Record<string, string>>,
): Record<string, unknown> {
  const { name: _name, task: _legacyTask, ...params } = upstreamParams(request, '', trace);
  const meta = isRecord(params['_meta']) ? params['_meta'] : {};
  const declared = meta[META.clientCapabilities];
  const capabilities = isRecord(declared) ? declared : {};
  const extensions = isRecord(capabilities['extensions']) ? capabilities['extensions'] : {};
  params['_meta'] = {
    ...meta,
    [META.clientCapabilities]: { ...capabilities, extensions: { ...extensions, [TASKS_EXTENSION]: {} } },
  };
  return params;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value.slice(0, MAX_TEXT) : undefined;
}

/** A 2026 DetailedTask (or the task fields of a CreateTaskResult) as a TaskView; undefined when it
 * is not one (no known status or no timestamps). */
export function taskViewOf(upstream: Record<string, unknown>): TaskView | undefined {
  const { status } = upstream;
  const createdAt = text(upstream['createdAt']);
  const lastUpdatedAt = text(upstream['lastUpdatedAt']) ?? createdAt;
  if (!isTaskStatus(status) || createdAt === undefined || lastUpdatedAt === undefined) return undefined;
  const ttl = upstream['ttlMs'];
  const poll = upstream['pollIntervalMs'];
  const statusMessage = text(upstream['statusMessage']);
  const { result, error, inputRequests } = upstream;
  return {
    status,
    createdAt,
    lastUpdatedAt,
    ttlMs: typeof ttl === 'number' && Number.isFinite(ttl) && ttl >= 0 ? ttl : null,
    ...(typeof poll === 'number' && Number.isFinite(poll) && poll >= 0 ? { pollIntervalMs: poll } : {}),
    ...(statusMessage === undefined ? {} : { statusMessage }),
    ...(status === 'completed' && isRecord(result) ? { result } : {}),
    ...(status === 'failed' && isRecord(error) ? { error } : {}),
    ...(status === 'input_required' && isRecord(inputRequests) ? { inputRequests } : {}),
  };
}

export function modernTaskUpstream(relay: Relay): TaskUpstream {
  const send = (method: string, upstreamId: string, context: TaskCallContext, extra = {}) =>
    relay({
      method,
      params: { ...taskEnvelope(context.request, context.trace), ...extra, taskId: upstreamId },
      paramHeaders: {},
      nameHeader: encodeMirroredValue(upstreamId),
      signal: context.signal,
      onNotification: () => undefined,
    });
  return {
    async get(upstreamId, context) {
      const view = taskViewOf(await send('tasks/get', upstreamId, context));
      if (view === undefined) throw new GatewayError('upstream_protocol_error');
      return view;
    },
    async cancel(upstreamId, context) {
      await send('tasks/cancel', upstreamId, context);
    },
    async update(upstreamId, inputResponses, context) {
      await send('tasks/update', upstreamId, context, { inputResponses });
    },
  };
}
