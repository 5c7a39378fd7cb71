// The params a modern upstream receives for a relayed request (duties 12–13): the client's own params
// (arguments, `inputResponses`, byte-exact `requestState`, `_meta` with its `clientCapabilities` and
// `progressToken`) with the upstream's tool name. A 2025-era client sends no `_meta`, so one is built
// declaring only MCP Apps (its initialize is not kept; the gateway relays UI resources unchanged).
// Trace context is the gateway's (SEP-414 keys, see `trace`).
import { headerValueFor } from './header-mirror.js';
import type { ParamHeader } from './param-headers.js';
import { SERVER_INFO } from './result-envelope.js';
import { META, MODERN_VERSION } from '../protocol/index.js';
import type { McpRequest } from './mcp-request.js';
import { gatewayUiCapability } from '../upstream/index.js';

/** The 2026 tasks extension (SEP-2663). */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

export function upstreamParams(
  request: McpRequest,
  upstreamName: string,
  trace: Readonly<Record<string, string>>,
): Record<string, unknown> {
  const params: Record<string, unknown> = { ...request.params, name: upstreamName };
  // The client's trace keys never go on as they came: the upstream gets `trace` (upstreamTraceMeta:
  // the gateway's context, so the upstream's span is a child of the gateway's).
  const meta = params['_meta'];
  if (typeof meta === 'object' && meta !== null) {
    const { traceparent: _p, tracestate: _s, baggage: _b, ...rest } = meta as Record<string, unknown>;
    params['_meta'] = { ...rest, ...trace };
  } else if (Object.keys(trace).length > 0) params['_meta'] = { ...trace };
  if (request.era === 'legacy') {
    const meta =
      typeof params['_meta'] === 'object' && params['_meta'] !== null
        ? (params['_meta'] as Record<string, unknown>)
        : {};
    // A 2025 client's `params.task` (issue 43) is the 2026 tasks extension declared on the request.
    const task = params['task'];
    delete params['task'];
    const ui = gatewayUiCapability();
    params['_meta'] = {
      ...meta,
      [META.protocolVersion]: MODERN_VERSION,
      [META.clientCapabilities]:
        typeof task === 'object' && task !== null && !Array.isArray(task)
          ? { extensions: { ...ui.extensions, [TASKS_EXTENSION]: {} } }
          : ui,
      [META.clientInfo]: SERVER_INFO,
    };
  }
  return params;
}

/** The client's `Mcp-Param-*` headers, forwarded unchanged (intermediaries must forward them). */
export function paramHeadersOf(
  headers: Readonly<Record<string, string | string[] | undefined>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!name.startsWith('mcp-param-')) continue;
    const single = Array.isArray(value) ? value[0] : value;
    if (single !== undefined) out[name] = single;
  }
  return out;
}

/** `Mcp-Param-*` headers derived from the arguments, for clients that do not send them (2025 era). */
export function derivedParamHeaders(
  params: readonly ParamHeader[],
  args: Record<string, unknown>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { property, header } of params) {
    const value = headerValueFor(args[property]);
    if (value !== undefined) out[`mcp-param-${header.toLowerCase()}`] = value;
  }
  return out;
}

/** For SDK-backed upstreams: re-emits their progress under the client's own progress token. */
export function progressRelay(
  request: McpRequest,
): ((progress: Record<string, unknown>) => void) | undefined {
  const meta = request.params['_meta'];
  const token =
    typeof meta === 'object' && meta !== null
      ? (meta as Record<string, unknown>)['progressToken']
      : undefined;
  if (typeof token !== 'string' && typeof token !== 'number') return undefined;
  return (progress) =>
    request.notify({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { ...progress, progressToken: token },
    });
}
