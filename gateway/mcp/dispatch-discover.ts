// server/discover, answered by the gateway itself (gateway duty 6): its own versions, aggregated
// capabilities and instructions; never an upstream's discover result.
import type { McpHandler } from './mcp-request.js';
import { LEGACY_VERSIONS, SUPPORTED_MODERN_VERSIONS } from '../protocol/index.js';

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

export const discover: McpHandler = (request) =>
  Promise.resolve({
    supportedVersions: [...SUPPORTED_MODERN_VERSIONS, ...LEGACY_VERSIONS],
    capabilities: GATEWAY_CAPABILITIES,
    instructions: instructionsFor(request.principal.workspace.name),
    ttlMs: 60_000,
    cacheScope: 'private',
  });
