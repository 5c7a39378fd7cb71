// server/discover, answered by the gateway itself (gateway duty 6): its own versions, aggregated
// capabilities and instructions; never an upstream's discover result. The 2026 tasks extension
// (issue 43, SEP-2663) is advertised to a key when a source it may see advertised it.
import { catalogFor, type ToolCatalog } from '../discovery/index.js';
import type { McpHandler } from './mcp-request.js';
import { LEGACY_VERSIONS, SUPPORTED_MODERN_VERSIONS } from '../protocol/index.js';
import { TASKS_EXTENSION } from './dispatch-tasks.js';

/** List changes and resource subscriptions: on the modern face through subscriptions/listen, on
 * the legacy face through the key's GET /mcp stream (issue 24). */
export const GATEWAY_CAPABILITIES = {
  tools: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: true },
  completions: {},
} as const;

export function instructionsFor(workspace: string): string {
  return `Agent Gateway for workspace "${workspace}". Tools from each connected source are named <source>__<tool>.`;
}

export function discover(catalog: ToolCatalog): McpHandler {
  return async (request) => {
    const { taskSources } = await catalogFor(catalog, request.principal);
    return {
      supportedVersions: [...SUPPORTED_MODERN_VERSIONS, ...LEGACY_VERSIONS],
      capabilities:
        taskSources.size > 0
          ? { ...GATEWAY_CAPABILITIES, extensions: { [TASKS_EXTENSION]: {} } }
          : GATEWAY_CAPABILITIES,
      instructions: instructionsFor(request.principal.workspace.name),
      ttlMs: 60_000,
      cacheScope: 'private',
    };
  };
}
