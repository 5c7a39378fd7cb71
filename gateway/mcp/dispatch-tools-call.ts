// tools/call (spec §4.2 rules 1–5, §5.5), read top to bottom in toolsCall: the gateway's own tools
// answer here; any other name is resolved to its source and tool, permitted for this key before any
// upstream contact (tools-call-permit.ts), then routed to its one source, relayed under the source's
// call time-out and recorded (tools-call-relay.ts), with guardrails on both sides of the relay
// (tools-call-guardrails.ts). A `user` source first needs the caller's connection there
// (tools-call-consent.ts: a URL elicitation otherwise). A tool the key cannot see answers exactly like an
// unknown tool. A call that asks for a task (issue 43) comes back as one, its id sealed (task-creation.ts).
import type { Principal } from '../auth/index.js';
import type { UserConnections } from '../connections/index.js';
import { CALL_TOOL, FIND_TOOLS, type ToolCatalog } from '../discovery/index.js';
import { GuardrailHooks } from '../governance/index.js';
import type { KnowledgeService } from '../knowledge/index.js';
import { limitsTools, type ToolLimits } from '../limits/tool-limits.js';
import { RPC } from '../protocol/index.js';
import { noteAudit, noteDenial } from '../telemetry/audit-context.js';
import { annotateRequest } from '../telemetry/tracing.js';
import type { ToolSearch } from '../tool-search/index.js';
import { findTools, innerCall, isDisclosureCall } from './disclosure-tools.js';
import { McpError } from './jsonrpc.js';
import { callKnowledgeTool, isKnowledgeTool, knowledgeToolsFor } from './knowledge-tools.js';
import type { McpHandler, McpRequest, McpResult } from './mcp-request.js';
import { RequestStateSeal } from './request-state-seal.js';
import { callWithTasks, type TaskCreationDeps } from './task-creation.js';
import { admitToolCall } from './tools-call-limits.js';
import { checkParamHeaders, permitCall, resolveCall, unknownTool } from './tools-call-permit.js';
import { checkCallPolicy } from './tools-call-policy.js';
import { consentForUnlisted, needsConsent, requireConnection, withConsent } from './connection-consent.js';
import { guardedRelay } from './tools-call-guardrails.js';
import { callSource, resumeBridgedCall, type RelayDeps } from './tools-call-relay.js';

export interface ToolsCallDeps extends RelayDeps, TaskCreationDeps {
  readonly catalog: ToolCatalog;
  readonly knowledge: KnowledgeService;
  readonly toolSearch: ToolSearch;
  /** Limits per tool and identity (issue 41), counted after policy, before guardrails. */
  readonly toolLimits: ToolLimits;
  /** The workspaces' guardrail hooks (issue 41); hooks whose secrets cannot be read when absent. */
  readonly guardrails?: GuardrailHooks;
  /** Users' connections to `user` sources (issue 42); such a source cannot be called without them. */
  readonly connections?: UserConnections | undefined;
}

const NO_HOOKS = new GuardrailHooks();

export function toolsCall(deps: ToolsCallDeps): McpHandler {
  const handler: McpHandler = async (request) => {
    const name = calledName(request.params);
    noteAudit({ target: { kind: 'tool', requested: name } });
    const args = argumentsOf(request.params);
    const principal = request.principal;
    if (request.relayedBy === undefined && isDisclosureCall(principal, name))
      return callDisclosureTool(handler, deps, request, name, args);
    if (isKnowledgeTool(name)) return callOwnKnowledgeTool(deps.knowledge, principal, name, args);
    // A `user` source a caller without a connection could not list yet: asked to connect.
    const permitted = await resolveCall(deps.catalog, principal, name)
      .then(async (target) => ({ target, tool: await permitCall(deps.catalog, principal, name, target) }))
      .catch((error: unknown) => ({ answer: consentForUnlisted(deps.connections, request, name, error) }));
    if ('answer' in permitted) return permitted.answer;
    const { target, tool } = permitted;
    checkParamHeaders(request, tool, args);
    checkCallPolicy(principal, tool, args);
    // Both steps are skipped, not awaited, when they cannot apply (no tool limits, no `user`
    // credential): the common relay path saves their promises (issue 45).
    if (limitsTools(principal)) await admitToolCall(deps.toolLimits, request, tool);
    const call = { source: target.source, tool, args, requested: name };
    const consent = needsConsent(target.source)
      ? await requireConnection(deps.connections, request, call)
      : { request };
    if ('answer' in consent) return consent.answer;
    // Whatever route answered, an upstream task id never reaches the client unsealed (task-creation.ts).
    return withConsent(deps.connections, consent.request, call, () =>
      callWithTasks(deps, consent.request, call, () =>
        guardedRelay(deps.guardrails ?? NO_HOOKS, consent.request, call, (guarded, permitted) => {
          const requestState = guarded.params['requestState'];
          return RequestStateSeal.isOurs(requestState)
            ? resumeBridgedCall(deps.bridge, guarded, permitted, requestState)
            : callSource(deps, guarded, permitted);
        }),
      ),
    );
  };
  return handler;
}

function calledName(params: Record<string, unknown>): string {
  const name = params['name'];
  if (typeof name !== 'string')
    throw new McpError(200, RPC.invalidParams, 'Invalid params: name must be a string.');
  return name;
}

function argumentsOf(params: Record<string, unknown>): Record<string, unknown> | undefined {
  const args = params['arguments'];
  if (args === undefined) return undefined;
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    throw new McpError(200, RPC.invalidParams, 'Invalid params: arguments must be an object.');
  }
  return args as Record<string, unknown>;
}

/** find_tools answers here; call_tool's inner call is decided by this same handler, as if the client
 * had made it directly; only its parameter headers differ (the client's headers mirror call_tool's
 * own arguments). */
function callDisclosureTool(
  handler: McpHandler,
  deps: ToolsCallDeps,
  request: McpRequest,
  name: string,
  args: Record<string, unknown> | undefined,
): Promise<McpResult> {
  if (name === FIND_TOOLS) return findTools(args ?? {}, request.principal, deps.catalog, deps.toolSearch);
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

/** The gateway's own read tools: visible only when the workspace has data sources the key may see. */
function callOwnKnowledgeTool(
  knowledge: KnowledgeService,
  principal: Principal,
  name: string,
  args: Record<string, unknown> | undefined,
): Promise<McpResult> {
  if (!knowledgeToolsFor(principal, knowledge).some((tool) => tool.name === name)) {
    // Hidden from this key when the workspace offers them to others (it has data sources).
    if (principal.workspace.dataSources.length > 0) noteDenial('not_visible');
    throw unknownTool(name);
  }
  return callKnowledgeTool(name, args ?? {}, principal, knowledge);
}
