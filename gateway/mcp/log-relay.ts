// Request-scoped upstream notifications on a tools/call's own SSE stream (issue 24, docs/mcp-2026.md
// §1.3): progress, and `notifications/message` at or above the level in force for the request. The
// modern face takes the request's `_meta` logLevel (absent: no log messages, the 2026 rule). The
// legacy face is stateless, so a `logging/setLevel` cannot reach a later call: its request's own
// `_meta` logLevel when it sends one, else LEGACY_LOG_LEVEL (docs/decisions.md). Log data is upstream
// content: it goes to the client only, never into the gateway's logs or traces; at most
// MAX_LOGS_PER_CALL messages per call.
import { META } from '../protocol/index.js';
import type { McpRequest } from './mcp-request.js';

export const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/** What a 2025-era caller gets when its request names no level. */
export const LEGACY_LOG_LEVEL = 'info';

/** Beyond this, an upstream's further log messages for the call are dropped. */
export const MAX_LOGS_PER_CALL = 1000;

export type LogSink = (params: Record<string, unknown>) => void;

function rank(level: unknown): number {
  return typeof level === 'string' ? LOG_LEVELS.indexOf(level) : -1;
}

/** The lowest level relayed for this request, or undefined when it gets no log messages. */
export function logThreshold(request: Pick<McpRequest, 'era' | 'params'>): string | undefined {
  const meta = request.params['_meta'];
  const asked =
    typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>)[META.logLevel] : undefined;
  if (rank(asked) >= 0) return asked as string;
  return request.era === 'legacy' ? LEGACY_LOG_LEVEL : undefined;
}

/** Relays the upstream's log messages for this call to its client, filtered and bounded. */
export function logRelay(request: McpRequest): LogSink | undefined {
  const threshold = logThreshold(request);
  if (threshold === undefined) return undefined;
  const floor = rank(threshold);
  let sent = 0;
  return (params) => {
    if (rank(params['level']) < floor || sent >= MAX_LOGS_PER_CALL) return;
    sent += 1;
    request.notify({ jsonrpc: '2.0', method: 'notifications/message', params });
  };
}

/** For relayed (2026) upstreams: only the call's own progress and log messages reach the client;
 * anything else an upstream puts on a call's stream (list changes, resource updates) is dropped. */
export function relayedNotifications(request: McpRequest): (message: Record<string, unknown>) => void {
  const log = logRelay(request);
  return (message) => {
    const params = message['params'];
    if (message['method'] === 'notifications/progress') request.notify(message);
    else if (message['method'] === 'notifications/message' && typeof params === 'object' && params !== null)
      log?.(params as Record<string, unknown>);
  };
}
