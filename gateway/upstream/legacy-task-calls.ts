// The 2025-11-25 experimental task requests of a legacy upstream (issue 43; spec 2025-11-25
// basic/utilities/tasks): a task-augmented tools/call (`params.task`) and tasks/get|result|cancel,
// sent over the connection's own client and so its own session — SDK v1 upstreams bind a task to
// the session that created it, and the pool shares that session between replicas (session-store.ts).
// Results come back raw (the SDK's schemas would refuse a `{task}` answer to tools/call); the
// upstream's JSON-RPC errors become UpstreamRpcError so the caller can tell -32602 "not found".
import type { Client } from '@modelcontextprotocol/client';
import { mcpClientSdk } from './mcp-client-sdk.js';
import { requestMeta } from './progress-sinks.js';
import { withResponseGuard } from './response-guard.js';
import { ANY_RESULT } from './tool-list-reader.js';
import { UpstreamProtocolError } from './upstream-answer-errors.js';
import type { CallOptions, LegacyTaskCalls } from './upstream-connection.js';
import { UpstreamRpcError } from './upstream-rpc-error.js';
import { isRecord } from '../platform/is-record.js';

/** `tasks.requests.tools.call` is declared (an object) in the upstream's initialize capabilities. */
export function declaresToolTasks(capabilities: Record<string, unknown>): boolean {
  const tasks = capabilities['tasks'];
  if (!isRecord(tasks)) return false;
  const requests = tasks['requests'];
  if (!isRecord(requests)) return false;
  const tools = requests['tools'];
  return isRecord(tools) && isRecord(tools['call']);
}

/** The task requests of a 2025-era connection whose upstream declared task-augmented tools/call;
 * undefined for any other connection. */
export function legacyTaskCalls(
  client: Client,
  era: string | undefined,
  capabilities: Record<string, unknown>,
): LegacyTaskCalls | undefined {
  if (era !== 'legacy' || !declaresToolTasks(capabilities)) return undefined;
  const send = async (
    method: string,
    params: Record<string, unknown>,
    options: CallOptions,
  ): Promise<Record<string, unknown>> => {
    let result: unknown;
    try {
      result = await withResponseGuard(options.signal, (signal) =>
        client.request(
          { method, params: { ...params, ...requestMeta(options.meta, undefined) } },
          ANY_RESULT,
          {
            signal,
            timeout: options.timeoutMs,
          },
        ),
      );
    } catch (error) {
      // The upstream's JSON-RPC error, answered in-band (HTTP 200) on the legacy wire.
      if (error instanceof mcpClientSdk().ProtocolError)
        throw new UpstreamRpcError(error.code, error.message, error.data, 200);
      throw error;
    }
    if (!isRecord(result)) throw new UpstreamProtocolError(`the ${method} result is not an object`);
    return result;
  };
  return {
    callTool(name, args, task, options) {
      return send(
        'tools/call',
        {
          name,
          ...(args === undefined ? {} : { arguments: args }),
          task: task.ttl === undefined ? {} : { ttl: task.ttl },
        },
        options,
      );
    },
    request(method, taskId, options) {
      return send(method, { taskId }, options);
    },
  };
}
