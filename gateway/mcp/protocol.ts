// MCP protocol constants the gateway speaks (docs/mcp-2026.md §1, §5, §6): versions, `_meta` keys,
// JSON-RPC error codes, and the methods that name a tool, prompt or resource.
export const MODERN_VERSION = '2026-07-28';
export const SUPPORTED_MODERN_VERSIONS: readonly string[] = [MODERN_VERSION];
/** 2025-era revisions served by the stateless legacy face; the first is offered by default. */
export const LEGACY_VERSIONS: readonly string[] = ['2025-11-25', '2025-06-18', '2025-03-26'];
/** A client that sends no MCP-Protocol-Version header on the legacy face is assumed to speak this. */
export const LEGACY_DEFAULT_VERSION = '2025-03-26';

export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  /** Our own result `_meta` key: sources left out of an aggregate list, and why. */
  unavailableSources: 'io.agentgateway/unavailableSources',
} as const;

export const RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  headerMismatch: -32020,
  missingClientCapability: -32021,
  unsupportedVersion: -32022,
  /** Implementation-defined transport errors (SDK convention: 405, 415, 413). */
  transport: -32000,
} as const;

/** Methods whose `Mcp-Name` header must mirror a body field (SEP-2243; tasks/* from SEP-2663). A
 * `Mcp-Name` on any other method mirrors nothing and is a mismatch. */
export const NAMED_METHODS: Readonly<Record<string, 'name' | 'uri' | 'taskId'>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

export function isDateVersion(value: unknown): value is string {
  return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value);
}

/** Whether a version string claims the modern (handshake-free) era: any date after 2025-11-25. */
export function isModernClaim(version: string): boolean {
  return isDateVersion(version) && version > '2025-11-25';
}
