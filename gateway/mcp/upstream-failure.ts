// Turns a failed upstream hop into the in-band JSON-RPC error the client sees, keeping the spec's
// failure classes apart (§7.1): a JSON-RPC error the upstream itself returned is the tool's answer
// (tool execution); anything else is reachability or upstream authorization.
import { mcpClientSdk } from '../upstream/mcp-client-sdk.js';
import { catalogueEntry, type ErrorCode } from '../errors/index.js';
import { classifyUpstreamError, UpstreamRpcError } from '../upstream/index.js';
import { McpError } from './jsonrpc.js';

export function upstreamFailure(error: unknown, source: string): McpError {
  if (error instanceof McpError) return error;
  if (error instanceof UpstreamRpcError) {
    // The upstream answered; relay its error. Ladder-level codes keep their 400, the rest are in-band.
    const status = error.httpStatus === 400 && (error.code === -32021 || error.code === -32602) ? 400 : 200;
    const data = error.data === undefined ? { class: 'tool_execution', source } : error.data;
    return new McpError(status, error.code, error.message, data as Record<string, unknown>, 'tool_execution');
  }
  if (error instanceof mcpClientSdk().ProtocolError) {
    return new McpError(
      200,
      error.code,
      error.message,
      { class: 'tool_execution', source },
      'tool_execution',
    );
  }
  return catalogueFailure(classifyUpstreamError(error), source);
}

/** The in-band JSON-RPC error for a catalogue failure of one source (HTTP 200, data names both). */
export function catalogueFailure(code: ErrorCode, source: string): McpError {
  const entry = catalogueEntry(code);
  return new McpError(
    200,
    entry.jsonRpcCode,
    entry.message,
    { code, class: entry.errorClass, source },
    entry.errorClass,
  );
}
