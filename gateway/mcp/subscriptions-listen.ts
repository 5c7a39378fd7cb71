// `subscriptions/listen` on the modern face (issue 24, docs/mcp-2026.md §1.3, duty 18): validates the
// filter, opens a bounded stream, subscribes upstream for the URIs the key may see, acknowledges the
// honoured subset first, then carries only the requested notification types, each stamped with the
// listen request's id as `subscriptionId`; a graceful end (shutdown, idle, lifetime, lost access) is
// the `complete` result. A URI the key cannot see is left out of the acknowledgement exactly like an
// unknown one (no existence oracle).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../auth/index.js';
import { catalogueEntry } from '../errors/index.js';
import type {
  ChangeEvent,
  NotificationStream,
  OpenRefusal,
  SubscriptionHub,
} from '../subscriptions/index.js';
import { errorMessage, McpError, type JsonRpcId } from './jsonrpc.js';
import { RPC } from '../protocol/index.js';
import { SERVER_INFO } from './result-envelope.js';
import type { FanOutDeps } from './source-fanout.js';
import { SseSink } from './sse-sink.js';
import { MAX_SUBSCRIPTION_URI_LENGTH, resolveSubscriptionUri } from './subscription-uris.js';
import type { TaskDeps } from './dispatch-tasks.js';
import { clientCapabilitiesOf } from './task-asks.js';
import { parseTaskIds, watchTasks } from './task-watch.js';
import { TASKS_EXTENSION } from './upstream-params.js';
import { isRecord } from '../platform/is-record.js';

/** The 2026 error for a request that needs a client capability it did not declare. */
const MISSING_CAPABILITY = -32021;

function declaresTasksIn(params: Record<string, unknown>): boolean {
  const extensions = clientCapabilitiesOf(params)['extensions'];
  return isRecord(extensions) && isRecord(extensions[TASKS_EXTENSION]);
}

export const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
const FLAGS = ['toolsListChanged', 'promptsListChanged', 'resourcesListChanged'] as const;
const FILTER_FIELDS = new Set<string>([...FLAGS, 'resourceSubscriptions', 'taskIds']);
const KIND_FLAG = {
  tools: 'toolsListChanged',
  prompts: 'promptsListChanged',
  resources: 'resourcesListChanged',
};

interface Filter {
  readonly flags: ReadonlySet<(typeof FLAGS)[number]>;
  readonly uris: readonly string[];
  /** Task ids whose `notifications/tasks` the client wants (issue 43); undefined when none asked. */
  readonly taskIds?: readonly string[];
}

const invalid = (message: string, data?: Record<string, unknown>) =>
  new McpError(200, RPC.invalidParams, `Invalid params: ${message}`, data);

export function parseFilter(params: Record<string, unknown>, maxUris: number): Filter | McpError {
  const notifications = params['notifications'];
  if (!isRecord(notifications)) return invalid('notifications must be an object.');
  for (const field of Object.keys(notifications))
    if (!FILTER_FIELDS.has(field))
      return invalid(`notifications.${field.slice(0, 64)} is not a notification type.`);
  const flags = new Set<(typeof FLAGS)[number]>();
  for (const flag of FLAGS) {
    const value = notifications[flag];
    if (value !== undefined && typeof value !== 'boolean')
      return invalid(`notifications.${flag} must be a boolean.`);
    if (value === true) flags.add(flag);
  }
  const requested = notifications['resourceSubscriptions'] ?? [];
  if (!Array.isArray(requested)) return invalid('notifications.resourceSubscriptions must be an array.');
  if (requested.length > maxUris)
    return invalid(`notifications.resourceSubscriptions holds more than ${maxUris} URIs.`, {
      code: 'invalid_request',
      class: catalogueEntry('invalid_request').errorClass,
      limit: { maxUrisPerStream: maxUris },
    });
  for (const uri of requested)
    if (typeof uri !== 'string' || uri === '' || uri.length > MAX_SUBSCRIPTION_URI_LENGTH)
      return invalid(
        `notifications.resourceSubscriptions must hold URIs of 1 to ${MAX_SUBSCRIPTION_URI_LENGTH} characters.`,
      );
  const taskIds = parseTaskIds(notifications['taskIds']);
  if (taskIds instanceof McpError) return taskIds;
  // A client that did not declare the tasks extension on this request may not ask (SEP-2663).
  if (taskIds !== undefined && !declaresTasksIn(params))
    return new McpError(400, MISSING_CAPABILITY, 'Missing required client capability', {
      requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
    });
  return { flags, uris: [...new Set(requested as string[])], ...(taskIds === undefined ? {} : { taskIds }) };
}

/** A cap reached: the caller's own load, answered like a rate limit (class `request`). */
export function streamCapReached(refusal: OpenRefusal): McpError {
  const entry = catalogueEntry('rate_limited');
  const field = refusal.refused === 'key' ? 'maxStreamsPerKey' : 'maxStreamsPerWorkspace';
  return new McpError(
    entry.status,
    entry.jsonRpcCode,
    `Too many notification streams are open for this ${refusal.refused} (${refusal.limit}); close one first.`,
    {
      code: 'rate_limited',
      class: entry.errorClass,
      retryAfterSeconds: 30,
      limit: { [field]: refusal.limit },
    },
    entry.errorClass,
    { 'retry-after': '30' },
  );
}

function sendError(reply: FastifyReply, id: JsonRpcId, error: McpError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) void reply.header(name, value);
  return reply.code(error.httpStatus).type('application/json').send(errorMessage(id, error));
}

export async function serveListen(
  hub: SubscriptionHub,
  deps: FanOutDeps,
  principal: Principal,
  request: { readonly id: JsonRpcId; readonly params: Record<string, unknown> },
  reply: FastifyReply,
  httpRequest: FastifyRequest,
  tasks?: TaskDeps,
): Promise<FastifyReply> {
  const filter = parseFilter(request.params, hub.limits().maxUrisPerStream);
  if (filter instanceof McpError) return sendError(reply, request.id, filter);
  const meta = { [SUBSCRIPTION_ID]: request.id };
  /** The honoured URIs, by `source\0upstream URI`, with the URI the client gave. */
  const honouredUris = new Map<string, string>();
  let acknowledged = false;
  const format = (event: ChangeEvent): Record<string, unknown> | undefined => {
    if (!acknowledged) return undefined;
    if (event.t === 'list')
      return filter.flags.has(KIND_FLAG[event.kind] as (typeof FLAGS)[number])
        ? { jsonrpc: '2.0', method: `notifications/${event.kind}/list_changed`, params: { _meta: meta } }
        : undefined;
    if (event.t !== 'updated') return undefined;
    const uri = honouredUris.get(`${event.source}\0${event.uri}`);
    return uri === undefined
      ? undefined
      : { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri, _meta: meta } };
  };
  const opened = hub.open(principal, 'listen', {
    sink: new SseSink(reply),
    format,
    last: () => ({
      jsonrpc: '2.0',
      id: request.id,
      result: {
        resultType: 'complete',
        _meta: { ...meta, 'io.modelcontextprotocol/serverInfo': SERVER_INFO },
      },
    }),
  });
  if (!('deliver' in opened)) return sendError(reply, request.id, streamCapReached(opened));
  const stream: NotificationStream = opened;
  for (const clientUri of filter.uris) {
    const target = await resolveSubscriptionUri(deps, principal, clientUri);
    if (target === undefined || !stream.open) continue;
    if ((await hub.watch(stream, target)) === 'subscribed')
      honouredUris.set(`${target.source}\0${target.uri}`, clientUri);
  }
  if (!stream.open) return reply;
  const honoured: Record<string, unknown> = {};
  for (const flag of filter.flags) honoured[flag] = true;
  if (honouredUris.size > 0) honoured['resourceSubscriptions'] = [...honouredUris.values()];
  // Task ids: those that open for this key (issue 43), watched once acknowledged.
  const taskIds =
    filter.taskIds === undefined || tasks === undefined
      ? []
      : watchTasks(tasks, principal, filter.taskIds, request.params['_meta'], stream, meta);
  if (taskIds.length > 0) honoured['taskIds'] = taskIds;
  stream.send({
    jsonrpc: '2.0',
    method: 'notifications/subscriptions/acknowledged',
    params: { notifications: honoured, _meta: meta },
  });
  acknowledged = true;
  httpRequest.log.debug({ uris: honouredUris.size }, 'subscriptions/listen acknowledged');
  return reply;
}
