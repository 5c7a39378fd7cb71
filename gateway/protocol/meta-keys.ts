// The `_meta` keys of MCP 2026 requests and results (docs/mcp-2026.md §1, §5) the gateway reads and
// writes, on the face and towards upstream sources alike, plus the one key of our own.
export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  /** Our own result `_meta` key: sources left out of an aggregate list, and why. */
  unavailableSources: 'io.agentgateway/unavailableSources',
} as const;
