// JSON-RPC error codes of MCP (JSON-RPC 2.0 §5.1 and the MCP 2026 transport's own, docs/mcp-2026.md §6).
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
