// What a dispatched MCP request carries: the authenticated principal (workspace from the key), the
// classified era and version, the JSON-RPC message, the raw headers (for Mcp-Param-* checks) and an
// abort signal that fires when the client goes away.
import type { Principal } from '../auth/index.js';
import type { Era } from './inbound-ladder.js';
import type { JsonRpcId } from './jsonrpc.js';

export interface McpRequest {
  readonly principal: Principal;
  readonly era: Era;
  readonly version: string;
  readonly id: JsonRpcId;
  readonly method: string;
  readonly params: Record<string, unknown>;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly signal: AbortSignal;
  /** Sends a request-scoped notification (e.g. progress) to the client; switches the answer to SSE. */
  readonly notify: (message: Record<string, unknown>) => void;
  /** Set on the inner call of a `call_tool` (issue 23): its headers mirror the outer call, so the
   * inner tool's parameter headers are derived from its arguments, not checked or relayed. */
  readonly relayedBy?: 'call_tool';
}

export type McpResult = Record<string, unknown>;
export type McpHandler = (request: McpRequest) => Promise<McpResult>;
