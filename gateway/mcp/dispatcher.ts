// Routes a validated MCP request to its handler by era and method; anything else is method-not-found
// (404 on the modern face per spec, in-band on the legacy face as 2025 servers answer).
import type { McpSourceConfig } from '../config/index.js';
import type { ToolCatalog } from '../discovery/index.js';
import { runAsCaller, upstreamCallerOf, type BreakerRegistry, type UpstreamPool } from '../upstream/index.js';
import { completionComplete } from './dispatch-completion.js';
import { discover } from './dispatch-discover.js';
import { legacyTaskHandlers, taskHandlers } from './dispatch-tasks.js';
import { TaskIdSeal } from './task-id-seal.js';
import type { TaskLimits } from './task-creation.js';
import { TASK_DEFAULTS } from '../config/index.js';
import { MemoryTaskLedger, type TaskLedger } from '../limits/task-ledger.js';
import { toolsCall } from './dispatch-tools-call.js';
import { toolsList } from './dispatch-tools-list.js';
import { promptsGet, promptsList } from './dispatch-prompts.js';
import { resourcesList, resourcesRead, resourceTemplatesList } from './dispatch-resources.js';
import type { UserConnections } from '../connections/index.js';
import { GuardrailHooks } from '../governance/index.js';
import type { KnowledgeService } from '../knowledge/index.js';
import type { ToolSearch } from '../tool-search/index.js';
import type { ToolLimits } from '../limits/tool-limits.js';
import type { SubscriptionHub } from '../subscriptions/index.js';
import { resourcesSubscribe, resourcesUnsubscribe } from './dispatch-resource-subscriptions.js';
import type { ElicitationBridge } from './elicitation-bridge.js';
import { McpError } from './jsonrpc.js';
import { initializeFor, ping, setLogLevel } from './legacy-handshake.js';
import type { McpHandler, McpRequest, McpResult } from './mcp-request.js';
import { RPC } from '../protocol/index.js';
import { envelope } from './result-envelope.js';
import { keyUiLinkClaims } from './ui-links.js';
import type { Principal } from '../auth/index.js';

export interface DispatcherDeps {
  readonly catalog: ToolCatalog;
  readonly pool: UpstreamPool;
  readonly breakers: BreakerRegistry;
  readonly bridge: ElicitationBridge;
  readonly knowledge: KnowledgeService;
  readonly toolSearch: ToolSearch;
  /** Limits per tool and identity (issue 41), on the same limiter as the request limits. */
  readonly toolLimits: ToolLimits;
  /** Resource subscriptions (issue 24); without it the legacy face does not offer them. */
  readonly subscriptions?: SubscriptionHub;
  /** Guardrail hooks (issue 41): their secrets and the reach policy they are reached through. */
  readonly guardrails?: GuardrailHooks;
  /** Users' connections to `user` sources (issue 42). */
  readonly connections?: UserConnections | undefined;
  /** Seals task ids (issue 43); replicas share its keys. A random key of this replica when absent. */
  readonly taskSeal?: TaskIdSeal;
  /** The keys' tasks and held results (issue 43); replicas share it through Redis. A ledger of
   * this replica's own when absent. */
  readonly ledger?: TaskLedger;
  /** `server.tasks` (issue 43), read per call; the defaults when absent. */
  readonly taskLimits?: () => TaskLimits;
}

export type Dispatch = (request: McpRequest) => Promise<McpResult>;

export function createDispatcher(options: DispatcherDeps): Dispatch {
  const deps = {
    ...options,
    taskSeal: options.taskSeal ?? new TaskIdSeal(),
    ledger: options.ledger ?? new MemoryTaskLedger(),
    taskLimits: options.taskLimits ?? (() => TASK_DEFAULTS),
  };
  const fanOutDeps = {
    pool: deps.pool,
    breakers: deps.breakers,
    lists: deps.catalog.lists,
    failing: (workspace: string, source: McpSourceConfig) => deps.catalog.failingCode(workspace, source),
    connections: deps.connections,
    uiLinks: (principal: Principal) => keyUiLinkClaims(deps.catalog, principal),
  };
  const shared: Record<string, McpHandler> = {
    'tools/list': toolsList(deps.catalog, deps.knowledge, fanOutDeps),
    'tools/call': toolsCall(deps),
    'resources/list': resourcesList(fanOutDeps),
    'resources/read': resourcesRead(fanOutDeps, deps.guardrails),
    'resources/templates/list': resourceTemplatesList(fanOutDeps),
    'prompts/list': promptsList(fanOutDeps),
    'prompts/get': promptsGet(fanOutDeps, deps.guardrails),
    'completion/complete': completionComplete(fanOutDeps),
  };
  // Tasks (issue 43): the 2026 extension on the modern face, the 2025 experimental tasks on the legacy one.
  const taskDeps = { ...deps, guardrails: deps.guardrails ?? new GuardrailHooks() };
  const modern: Record<string, McpHandler> = {
    ...shared,
    ...taskHandlers(taskDeps),
    'server/discover': discover(deps.catalog),
  };
  const legacy: Record<string, McpHandler> = {
    ...shared,
    ...legacyTaskHandlers(taskDeps),
    initialize: initializeFor(deps.catalog),
    ping,
    'logging/setLevel': setLogLevel,
  };
  if (deps.subscriptions !== undefined) {
    legacy['resources/subscribe'] = resourcesSubscribe(deps.subscriptions, fanOutDeps);
    legacy['resources/unsubscribe'] = resourcesUnsubscribe(deps.subscriptions, fanOutDeps);
  }

  return async (request) => {
    const table = request.era === 'modern' ? modern : legacy;
    const handler = Object.hasOwn(table, request.method) ? table[request.method] : undefined;
    if (handler === undefined) {
      throw new McpError(
        request.era === 'modern' ? 404 : 200,
        RPC.methodNotFound,
        `Method not found: ${request.method}`,
      );
    }
    // Upstream hops run on behalf of this caller (token exchange, issue 29; upstream-caller.ts).
    const caller = upstreamCallerOf(request.principal);
    return envelope(await runAsCaller(caller, () => handler(request)), request.era);
  };
}
