// The stateless legacy face for 2025-era clients (issue 3): `initialize` answered without minting a
// session id, `ping`, and `logging/setLevel` accepted. Every later request is self-contained too.
// The 2025 experimental tasks (issue 43) are declared to a key that may see a source running tasks:
// task-augmented tools/call and cancel, no list (the gateway keeps no list of a key's tasks).
import { catalogFor, type ToolCatalog } from '../discovery/index.js';
import { GATEWAY_CAPABILITIES, instructionsFor } from './dispatch-discover.js';
import type { McpHandler } from './mcp-request.js';
import { LEGACY_VERSIONS } from '../protocol/index.js';
import { SERVER_INFO } from './result-envelope.js';

export const LEGACY_TASKS_CAPABILITY = { cancel: {}, requests: { tools: { call: {} } } } as const;

export function initializeFor(catalog: ToolCatalog): McpHandler {
  return async (request) => {
    const requested = request.params['protocolVersion'];
    const version =
      typeof requested === 'string' && LEGACY_VERSIONS.includes(requested) ? requested : LEGACY_VERSIONS[0];
    const { taskSources } = await catalogFor(catalog, request.principal);
    return {
      protocolVersion: version,
      capabilities:
        taskSources.size > 0
          ? { ...GATEWAY_CAPABILITIES, tasks: LEGACY_TASKS_CAPABILITY }
          : GATEWAY_CAPABILITIES,
      serverInfo: SERVER_INFO,
      instructions: instructionsFor(request.principal.workspace.name),
    };
  };
}

export const ping: McpHandler = () => Promise.resolve({});
export const setLogLevel: McpHandler = () => Promise.resolve({});
