// tools/call (spec §4.2 rules 1–5, §5.5): resolve the namespaced name, check the key may call it
// before any upstream contact, check `Mcp-Param-*` mirrors, then forward to the one upstream with
// its call time-out. A tool the key cannot see answers exactly like an unknown tool.
import { canSeeSource, hasAccess, type Principal } from '../auth/index.js';
import { withDeadline } from '../platform/deadline.js';
import {
  CALL_TOOL,
  FIND_TOOLS,
  isVisible,
  resolveToolName,
  type CatalogTool,
  type ToolCatalog,
} from '../discovery/index.js';
import { catalogueEntry } from '../errors/index.js';
import {
  bridgeableCapabilities,
  LEGACY_CALLER_CAPABILITIES,
  withSessionRecovery,
  type BreakerRegistry,
  type BridgedConnection,
  type ServerRequestHandler,
  type UpstreamPool,
} from '../upstream/index.js';
import type { KnowledgeService } from '../knowledge/index.js';
import type { McpSourceConfig } from '../config/index.js';
import type { ElicitationBridge } from './elicitation-bridge.js';
import { callKnowledgeTool, isKnowledgeTool, knowledgeToolsFor } from './knowledge-tools.js';
import { findTools, innerCall, isDisclosureCall } from './disclosure-tools.js';
import type { ToolSearch } from '../tool-search/index.js';
import { RequestStateSeal } from './request-state-seal.js';
import { McpError } from './jsonrpc.js';
import type { McpHandler } from './mcp-request.js';
import { annotatedParams, paramHeaderMismatch } from './param-headers.js';
import { encodeMirroredValue } from './header-mirror.js';
import { derivedParamHeaders, paramHeadersOf, progressRelay, upstreamParams } from './upstream-params.js';
import { logRelay, relayedNotifications } from './log-relay.js';
import { META, RPC } from '../protocol/index.js';
import { catalogueFailure, upstreamFailure } from './upstream-failure.js';
import { annotateRequest, inSpan, SpanKind } from '../telemetry/tracing.js';
import { noteAudit, noteDenial } from '../telemetry/audit-context.js';
import { count, recordDuration } from '../telemetry/metrics.js';

export interface ToolsCallDeps {
  readonly catalog: ToolCatalog;
  readonly pool: UpstreamPool;
  readonly breakers: BreakerRegistry;
  readonly bridge: ElicitationBridge;
  readonly knowledge: KnowledgeService;
  readonly toolSearch: ToolSearch;
}

export function unknownTool(name: string): McpError {
  return new McpError(200, RPC.invalidParams, `Unknown tool: ${name}`);
}

/** A permission denial on /mcp (D18, issue 8.11): an in-band JSON-RPC error with a plain message,
 * not HTTP 403 with an OAuth `insufficient_scope` challenge, which MCP clients take as a cue to
 * start an OAuth step-up (mcp-remote then tries Dynamic Client Registration). The one exception is
 * an OAuth caller that more scopes would make a writer (issue 29): for it a step-up is the answer. */
export function needsWrite(tool: string, principal?: Principal): McpError {
  const entry = catalogueEntry('forbidden');
  const stepUp = principal?.oidc?.stepUp;
  if (stepUp !== undefined)
    return new McpError(
      403,
      entry.jsonRpcCode,
      `Permission denied: ${tool} needs write access; sign in again with the scope ${stepUp.scopes.join(' ')}.`,
      {
        code: 'insufficient_scope',
        class: entry.errorClass,
        requiredPermission: 'write',
        grantedPermission: 'read',
      },
      entry.errorClass,
      { 'www-authenticate': stepUp.challenge },
    );
  return new McpError(
    200,
    entry.jsonRpcCode,
    `Permission denied: ${tool} needs an API key with write access; this key has read access.`,
    { code: 'forbidden', class: entry.errorClass, requiredPermission: 'write', grantedPermission: 'read' },
    entry.errorClass,
  );
}

function argumentsOf(params: Record<string, unknown>): Record<string, unknown> | undefined {
  const args = params['arguments'];
  if (args === undefined) return undefined;
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    throw new McpError(200, RPC.invalidParams, 'Invalid params: arguments must be an object.');
  }
  return args as Record<string, unknown>;
}

export function toolsCall(deps: ToolsCallDeps): McpHandler {
  const handler: McpHandler = async (request) => {
    const name = request.params['name'];
    if (typeof name !== 'string')
      throw new McpError(200, RPC.invalidParams, 'Invalid params: name must be a string.');
    noteAudit({ target: { kind: 'tool', requested: name } });
    const args = argumentsOf(request.params);
    const principal = request.principal;
    if (request.relayedBy === undefined && isDisclosureCall(principal, name)) {
      if (name === FIND_TOOLS) return findTools(args ?? {}, principal, deps.catalog, deps.toolSearch);
      // The inner call is decided by this same handler, as if the client had made it directly; only
      // its parameter headers differ (the client's headers mirror call_tool's own arguments).
      const inner = innerCall(args ?? {});
      annotateRequest({ 'agw.mcp.relayed_by': CALL_TOOL });
      noteAudit({ relayedBy: CALL_TOOL });
      const { arguments: _outer, ...params } = request.params;
      return handler({
        ...request,
        params: {
          ...params,
          name: inner.name,
          ...(inner.arguments === undefined ? {} : { arguments: inner.arguments }),
        },
        relayedBy: CALL_TOOL,
      });
    }
    if (isKnowledgeTool(name)) {
      // The gateway's own read tools: visible only when the workspace has data sources the key may see.
      if (!knowledgeToolsFor(principal, deps.knowledge).some((tool) => tool.name === name)) {
        // Hidden from this key when the workspace offers them to others (it has data sources).
        if (principal.workspace.dataSources.length > 0) noteDenial('not_visible');
        throw unknownTool(name);
      }
      return callKnowledgeTool(name, args ?? {}, principal, deps.knowledge);
    }
    // Only the named tool's own source is consulted (or, for a bare name, the key's unprefixed
    // sources), so a slow or broken source never delays calls to the others' prefixed tools.
    let target = await resolveToolName(deps.catalog, principal, name);
    if (target.canonical === undefined && target.reused)
      target = await resolveToolName(deps.catalog, principal, name, { fresh: true });
    const sourceName = target.source ?? '';
    const canonical = target.canonical;
    const source = principal.workspace.mcpSources.find((candidate) => candidate.name === sourceName);
    noteAudit({ source: source?.name, target: { kind: 'tool', name: canonical, requested: name } });
    if (canonical === undefined || source === undefined || !canSeeSource(principal, sourceName)) {
      // A bare name whose one candidate source could not be listed: say why, as below.
      const only = target.failed.length === 1 ? target.failed[0] : undefined;
      const failure =
        only === undefined ? undefined : deps.catalog.status(principal.workspace.name, only).error;
      if (only !== undefined && failure !== undefined) throw catalogueFailure(failure.code, only);
      if (target.hiddenIn !== undefined) noteAudit({ source: target.hiddenIn });
      // Told to the auditor, never the caller.
      if (source !== undefined || target.hiddenIn !== undefined) noteDenial('not_visible');
      throw unknownTool(name);
    }
    const workspace = principal.workspace.name;
    const find = (tools: readonly CatalogTool[]) => {
      const found = tools.find((candidate) => candidate.name === canonical);
      return found !== undefined && isVisible(principal, found) ? found : undefined;
    };
    const decided = await deps.catalog.callTools(workspace, source);
    let tool = find(decided.tools);
    // A list reused within the source's floor decides only what it allows: anything it would refuse
    // (unknown tool, missing permission) is decided again on a fresh list.
    if (decided.reused && (tool === undefined || !hasAccess(principal, tool.permission)))
      tool = find((await deps.catalog.callTools(workspace, source, { fresh: true })).tools);
    if (tool === undefined) {
      // The key may see this source but its tools could not be listed: say why (an open breaker, a
      // source that is down) rather than claim the tool does not exist.
      const failure = deps.catalog.status(workspace, sourceName).error;
      if (failure !== undefined) throw catalogueFailure(failure.code, sourceName);
      if (decided.tools.some((listed) => listed.name === canonical)) noteDenial('not_visible');
      throw unknownTool(name);
    }
    if (!hasAccess(principal, tool.permission)) {
      noteDenial('write_required');
      throw needsWrite(name, principal);
    }
    const mismatch = paramHeaderMismatch(
      annotatedParams(tool.inputSchema),
      args ?? {},
      request.headers,
      request.era === 'modern' && request.relayedBy === undefined ? 'required' : 'if-present',
    );
    if (mismatch !== undefined) {
      throw new McpError(400, RPC.headerMismatch, `Header mismatch: ${mismatch} must mirror its argument.`, {
        mismatch: { header: mismatch },
      });
    }
    const requestState = request.params['requestState'];
    if (RequestStateSeal.isOurs(requestState)) {
      // The retry of a bridged legacy call: continue it where it waits for the client's answer.
      try {
        return await deps.bridge.resume(
          {
            workspace,
            keyId: principal.keyId,
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
    // A 2025-era caller's capabilities are unknown to the stateless legacy face: both are declared
    // and the questions go on the call's own stream (issue 24, docs/decisions.md).
    const bridgeable =
      request.era === 'modern'
        ? bridgeableCapabilities(clientCapabilitiesOf(request.params))
        : LEGACY_CALLER_CAPABILITIES;
    const onProgress = progressRelay(request);
    const onLog = logRelay(request);
    const notices = {
      ...(onProgress === undefined ? {} : { onProgress }),
      ...(onLog === undefined ? {} : { onLog }),
    };
    annotateRequest({ 'gen_ai.tool.name': name, 'gen_ai.operation.name': 'execute_tool' });
    return inSpan(
      `tools/call ${tool.upstreamName}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'mcp.method.name': 'tools/call',
          'gen_ai.tool.name': tool.upstreamName,
          'gen_ai.operation.name': 'execute_tool',
          'agw.source': source.name,
          'agw.upstream.transport': source.transport,
          'agw.breaker.state': deps.breakers.state(workspace, source.name),
          ...upstreamAddress(source),
        },
      },
      async (span) => {
        const started = performance.now();
        const observe = (errorType?: string) => {
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
              const connect = (onServerRequest: ServerRequestHandler) =>
                deps.pool.connectBridged(source, bridgeable ?? {}, onServerRequest, {
                  workspace,
                  keyId: principal.keyId,
                  signal: request.signal,
                });
              const call = (bridged: BridgedConnection) =>
                bridged.callTool(
                  tool.upstreamName,
                  args,
                  AbortSignal.timeout(source.timeouts.callMs),
                  source.timeouts.callMs,
                  notices,
                );
              // Within the source's budget of dedicated sessions; past it, the pooled session.
              const place =
                connection.relay === undefined && request.era === 'legacy'
                  ? deps.bridge.streamed.reserve(workspace, source.name)
                  : undefined;
              if (place !== undefined) {
                const streamed = { keyId: principal.keyId, workspace, tool: tool.name, args };
                return deps.bridge.streamed
                  .run({ ...streamed, signal: request.signal, notify: request.notify, connect, call })
                  .finally(place);
              }
              if (connection.relay === undefined && request.era === 'modern' && bridgeable !== undefined) {
                // The bridged call outlives this request (it may wait for the client's answer), so
                // it has its own time-out rather than the request's signal.
                return deps.bridge.start({
                  keyId: principal.keyId,
                  workspace,
                  signal: request.signal,
                  tool: tool.name,
                  args,
                  connect,
                  call,
                });
              }
              return withDeadline(request.signal, source.timeouts.callMs, (signal) => {
                if (connection.relay !== undefined) {
                  return connection.relay({
                    method: 'tools/call',
                    params: upstreamParams(request, tool.upstreamName),
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
                  ...notices,
                });
              });
            }),
          );
          observe();
          return result;
        } catch (error) {
          const failure = upstreamFailure(error, source.name);
          // A call whose client went away says nothing about the pooled session (issue 28.1).
          if (failure.errorClass === 'upstream_reachability' && !request.signal.aborted)
            deps.pool.discard(principal.workspace.name, source.name);
          span.setAttribute('rpc.response.status_code', String(failure.rpcCode));
          observe(failure.errorClass);
          throw failure;
        }
      },
    );
  };
  return handler;
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

function clientCapabilitiesOf(params: Record<string, unknown>): Record<string, unknown> {
  const meta = params['_meta'];
  const capabilities =
    typeof meta === 'object' && meta !== null
      ? (meta as Record<string, unknown>)[META.clientCapabilities]
      : undefined;
  return typeof capabilities === 'object' && capabilities !== null
    ? (capabilities as Record<string, unknown>)
    : {};
}
