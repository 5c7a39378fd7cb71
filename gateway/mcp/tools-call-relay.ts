// The route, relay and record steps of tools/call (spec §4.2 rule 5, §5.5): a permitted call goes to
// its one source through the breaker and session recovery, on the route its era and the client's
// capabilities call for (the byte-faithful relay, a bridged session that can ask the client, or the
// pooled SDK session), under the source's call time-out; each call is a client span with its count
// and duration, and a failure becomes a catalogue error.
import type { McpSourceConfig } from '../config/index.js';
import type { CatalogTool } from '../discovery/index.js';
import { withDeadline } from '../platform/deadline.js';
import { count, recordDuration } from '../telemetry/metrics.js';
import { telemetryStarted } from '../telemetry/telemetry-handle.js';
import { annotateRequest, inSpan, SpanKind, upstreamTraceMeta } from '../telemetry/tracing.js';
import {
  bridgeableCapabilities,
  LEGACY_CALLER_CAPABILITIES,
  uiCapabilityOf,
  withSessionRecovery,
  type BreakerRegistry,
  type BridgedConnection,
  type LegacyTaskCalls,
  type CallNotices,
  type ServerRequestHandler,
  type UpstreamConnection,
  type UpstreamPool,
} from '../upstream/index.js';
import type { ElicitationBridge } from './elicitation-bridge.js';
import { encodeMirroredValue } from './header-mirror.js';
import { logRelay, relayedNotifications } from './log-relay.js';
import type { McpRequest, McpResult } from './mcp-request.js';
import { annotatedParams } from './param-headers.js';
import { derivedParamHeaders, paramHeadersOf, progressRelay, upstreamParams } from './upstream-params.js';
import { upstreamFailure } from './upstream-failure.js';
import { legacyTaskCreation } from './legacy-task-upstream.js';
import { asksForTask, clientCapabilitiesOf } from './task-asks.js';
import { MAX_TASK_TTL_MS } from './task-faces.js';

export interface RelayDeps {
  readonly pool: UpstreamPool;
  readonly breakers: BreakerRegistry;
  readonly bridge: ElicitationBridge;
}

/** One permitted call: the source, the tool on it, the arguments, and the name the client sent. */
export interface PermittedCall {
  readonly source: McpSourceConfig;
  readonly tool: CatalogTool;
  readonly args: Record<string, unknown> | undefined;
  readonly requested: string;
}

/** The retry of a bridged legacy call (its `requestState` is ours): continue it where it waits for
 * the client's answer, on whichever replica holds it. */
export async function resumeBridgedCall(
  bridge: ElicitationBridge,
  request: McpRequest,
  { source, tool, args }: PermittedCall,
  requestState: string,
): Promise<McpResult> {
  try {
    return await bridge.resume(
      {
        workspace: request.principal.workspace.name,
        keyId: request.principal.keyId,
        tool: tool.name,
        args,
        requestState,
        inputResponses: request.params['inputResponses'],
      },
      // The owner answers within its own call time-out; a little more for the hop between replicas.
      source.timeouts.callMs + 2000,
    );
  } catch (error) {
    throw upstreamFailure(error, source.name);
  }
}

/** Record: the call to the source as a client span, counted and timed by outcome; a failure is
 * mapped to the catalogue, and one that shows the pooled session unreachable discards it. */
export function callSource(deps: RelayDeps, request: McpRequest, call: PermittedCall): Promise<McpResult> {
  const { source, tool } = call;
  const workspace = request.principal.workspace.name;
  // A 2025-era caller's capabilities are unknown to the stateless legacy face: both are declared
  // and the questions go on the call's own stream (issue 24, docs/decisions.md).
  const bridgeable =
    request.era === 'modern'
      ? bridgeableCapabilities(clientCapabilitiesOf(request.params))
      : LEGACY_CALLER_CAPABILITIES;
  const onProgress = progressRelay(request);
  const onLog = logRelay(request);
  const notices: CallNotices = {
    ...(onProgress === undefined ? {} : { onProgress }),
    ...(onLog === undefined ? {} : { onLog }),
  };
  annotateRequest({ 'gen_ai.tool.name': call.requested, 'gen_ai.operation.name': 'execute_tool' });
  return inSpan(
    `tools/call ${tool.upstreamName}`,
    {
      kind: SpanKind.CLIENT,
      // Built only for a recorded span (issue 45: the relay path with telemetry off builds none).
      attributes: () => ({
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': tool.upstreamName,
        'gen_ai.operation.name': 'execute_tool',
        'agw.source': source.name,
        'agw.upstream.transport': source.transport,
        'agw.breaker.state': deps.breakers.state(workspace, source.name),
        ...upstreamAddress(source),
      }),
    },
    async (span) => {
      const started = performance.now();
      const observe = (errorType?: string) => {
        if (!telemetryStarted()) return;
        const labels = {
          'agw.workspace': workspace,
          'agw.source': source.name,
          'mcp.method.name': 'tools/call',
          ...(errorType === undefined ? {} : { 'error.type': errorType }),
        };
        count('agw.upstream.calls', labels);
        recordDuration('agw.upstream.duration', (performance.now() - started) / 1000, labels);
      };
      try {
        const result = await deps.breakers.run(workspace, source, () =>
          withSessionRecovery(deps.pool, workspace, source, (connection) => {
            span.setAttribute('agw.upstream.era', connection.era ?? 'unknown');
            return routeCall(deps, request, call, connection, bridgeable, notices);
          }),
        );
        observe();
        return result;
      } catch (error) {
        const failure = upstreamFailure(error, source.name);
        // A call whose client went away says nothing about the pooled session (issue 28.1).
        if (failure.errorClass === 'upstream_reachability' && !request.signal.aborted)
          deps.pool.discard(workspace, source.name);
        span.setAttribute('rpc.response.status_code', String(failure.rpcCode));
        observe(failure.errorClass);
        throw failure;
      }
    },
  );
}

/** Route: a legacy client's call to a legacy upstream asks its questions on the call's own stream,
 * within the source's budget of dedicated sessions; a modern client that can answer questions gets a
 * bridged session; everything else goes straight to the connection. */
function routeCall(
  deps: RelayDeps,
  request: McpRequest,
  call: PermittedCall,
  connection: UpstreamConnection,
  bridgeable: ReturnType<typeof bridgeableCapabilities>,
  notices: CallNotices,
): Promise<McpResult> {
  const { source, tool, args } = call;
  const { keyId } = request.principal;
  const workspace = request.principal.workspace.name;
  // A 2026 client's own MCP Apps declaration goes on its dedicated session (a legacy caller's
  // capabilities already declare it).
  const declared = {
    ...(bridgeable ?? {}),
    ...(request.era === 'modern' ? uiCapabilityOf(clientCapabilitiesOf(request.params)) : {}),
  };
  // Read inside the call's client span: the upstream's context names it as parent, on every route.
  const trace = upstreamTraceMeta(request.params['_meta']);
  const connect = (onServerRequest: ServerRequestHandler) =>
    deps.pool.connectBridged(source, declared, onServerRequest, {
      workspace,
      keyId,
      signal: request.signal,
    });
  const callBridged = (bridged: BridgedConnection) =>
    bridged.callTool(
      tool.upstreamName,
      args,
      AbortSignal.timeout(source.timeouts.callMs),
      source.timeouts.callMs,
      notices,
      trace,
    );
  // A REST API (issue 44): one HTTP request, nothing to ask the client.
  if (connection.transport === 'openapi') return relayCall(request, call, connection, notices, trace);
  // A task asked of a 2025 upstream's tool that may run as one (issue 43): its experimental tasks,
  // on the pooled session (the upstream keeps the task in the session that made it).
  if (connection.legacyTasks !== undefined && asksForTask(request) && mayRunAsTask(tool))
    return legacyTaskCall(request, call, connection.legacyTasks, trace);
  // Within the source's budget of dedicated sessions; past it, the pooled session.
  const place =
    connection.relay === undefined && request.era === 'legacy'
      ? deps.bridge.streamed.reserve(workspace, source.name)
      : undefined;
  if (place !== undefined) {
    const streamed = { keyId, workspace, tool: tool.name, args };
    return deps.bridge.streamed
      .run({ ...streamed, signal: request.signal, notify: request.notify, connect, call: callBridged })
      .finally(place);
  }
  if (connection.relay === undefined && request.era === 'modern' && bridgeable !== undefined) {
    // The bridged call outlives this request (it may wait for the client's answer), so
    // it has its own time-out rather than the request's signal.
    return deps.bridge.start({
      keyId,
      workspace,
      signal: request.signal,
      tool: tool.name,
      args,
      connect,
      call: callBridged,
    });
  }
  return relayCall(request, call, connection, notices, trace);
}

/** The tool's 2025 `execution.taskSupport` allows a task. */
function mayRunAsTask(tool: CatalogTool): boolean {
  const execution = (tool.definition as { execution?: { taskSupport?: unknown } }).execution;
  return execution?.taskSupport === 'optional' || execution?.taskSupport === 'required';
}

/** tools/call with `params.task` on the upstream's session; a task comes back in the 2026 form
 * (CreateTaskResult, the upstream's id still in it: task-creation.ts seals it). A 2025 client's
 * `ttl` is passed on; a 2026 client has none to give. */
async function legacyTaskCall(
  request: McpRequest,
  { source, tool, args }: PermittedCall,
  calls: LegacyTaskCalls,
  trace: Readonly<Record<string, string>>,
): Promise<McpResult> {
  const asked = request.params['task'];
  const ttl =
    request.era === 'legacy' && typeof asked === 'object' && asked !== null
      ? (asked as Record<string, unknown>)['ttl']
      : undefined;
  const raw = await withDeadline(request.signal, source.timeouts.callMs, (signal) =>
    calls.callTool(
      tool.upstreamName,
      args,
      typeof ttl === 'number' && Number.isFinite(ttl) && ttl >= 0
        ? { ttl: Math.min(ttl, MAX_TASK_TTL_MS) }
        : {},
      { signal, timeoutMs: source.timeouts.callMs, meta: trace },
    ),
  );
  const created = legacyTaskCreation(raw);
  if (created.kind === 'result') return created.result;
  return { resultType: 'task', taskId: created.upstreamId, ...created.view };
}

/** Relay: the call on the pooled connection under the source's call time-out; a 2026-07-28 upstream
 * gets the request byte-faithfully (D4) with its mirrored headers. */
function relayCall(
  request: McpRequest,
  { source, tool, args }: PermittedCall,
  connection: UpstreamConnection,
  notices: CallNotices,
  trace: Readonly<Record<string, string>>,
): Promise<McpResult> {
  return withDeadline(request.signal, source.timeouts.callMs, (signal) => {
    if (connection.relay !== undefined) {
      return connection.relay({
        method: 'tools/call',
        params: upstreamParams(request, tool.upstreamName, trace),
        paramHeaders:
          request.era === 'modern' && request.relayedBy === undefined
            ? paramHeadersOf(request.headers)
            : derivedParamHeaders(annotatedParams(tool.inputSchema), args ?? {}),
        nameHeader: encodeMirroredValue(tool.upstreamName),
        signal,
        onNotification: relayedNotifications(request),
      });
    }
    return connection.callTool(tool.upstreamName, args, {
      signal,
      timeoutMs: source.timeouts.callMs,
      meta: trace,
      ...notices,
    });
  });
}

/** `server.address`/`server.port` of a source, parsed once per config object (not per call). */
const addresses = new WeakMap<McpSourceConfig, { 'server.address'?: string; 'server.port'?: number }>();
function upstreamAddress(source: McpSourceConfig): { 'server.address'?: string; 'server.port'?: number } {
  let address = addresses.get(source);
  if (address === undefined) {
    const url = source.url === undefined ? undefined : new URL(source.url);
    address =
      url === undefined
        ? {}
        : {
            'server.address': url.hostname,
            'server.port': Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
          };
    addresses.set(source, address);
  }
  return address;
}
