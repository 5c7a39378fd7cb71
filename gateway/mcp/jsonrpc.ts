// JSON-RPC 2.0 message shapes on the downstream face and the error type the MCP pipeline throws.
// An McpError carries the HTTP status it must be sent with (400/404 for ladder rejections, 200 for
// in-band handler errors) so one renderer can produce every wire shape.
import type { ErrorClass } from '../errors/index.js';

export type JsonRpcId = string | number;

export interface JsonRpcRequest {
  readonly jsonrpc: '2.0';
  readonly id: JsonRpcId;
  readonly method: string;
  readonly params: Record<string, unknown>;
}

export interface JsonRpcNotification {
  readonly jsonrpc: '2.0';
  readonly method: string;
  readonly params: Record<string, unknown>;
}

export interface McpErrorData {
  readonly [key: string]: unknown;
}

export class McpError extends Error {
  constructor(
    readonly httpStatus: number,
    readonly rpcCode: number,
    message: string,
    readonly data: McpErrorData | undefined = undefined,
    readonly errorClass: ErrorClass = 'request',
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'McpError';
  }
}

export function resultMessage(id: JsonRpcId | null, result: unknown): string {
  return JSON.stringify({ jsonrpc: '2.0', id, result });
}

export function errorMessage(id: JsonRpcId | null, error: McpError): string {
  const body: Record<string, unknown> = { code: error.rpcCode, message: error.message };
  if (error.data !== undefined) body['data'] = error.data;
  return JSON.stringify({ jsonrpc: '2.0', id, error: body });
}
