// The stateless legacy face for 2025-era clients (issue 3): `initialize` answered without minting a
// session id, `ping`, and `logging/setLevel` accepted. Every later request is self-contained too.
import { GATEWAY_CAPABILITIES, instructionsFor } from './dispatch-discover.js';
import type { McpHandler } from './mcp-request.js';
import { LEGACY_VERSIONS } from '../protocol/index.js';
import { SERVER_INFO } from './result-envelope.js';

export const initialize: McpHandler = (request) => {
  const requested = request.params['protocolVersion'];
  const version =
    typeof requested === 'string' && LEGACY_VERSIONS.includes(requested) ? requested : LEGACY_VERSIONS[0];
  return Promise.resolve({
    protocolVersion: version,
    capabilities: GATEWAY_CAPABILITIES,
    serverInfo: SERVER_INFO,
    instructions: instructionsFor(request.principal.workspace.name),
  });
};

export const ping: McpHandler = () => Promise.resolve({});
export const setLogLevel: McpHandler = () => Promise.resolve({});
