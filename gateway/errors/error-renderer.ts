// Renders a GatewayError into the REST wire shape (docs/errors.md, "Error format"). The JSON-RPC shape for
// the MCP face is rendered by the mcp context from the same catalogue entry.
import type { GatewayError } from './gateway-error.js';

export interface RestErrorBody {
  readonly error: {
    readonly code: string;
    readonly class: string;
    readonly message: string;
    readonly requestId: string;
    readonly details?: readonly { readonly path: string; readonly problem: string }[];
  };
}

export function renderRestError(error: GatewayError, requestId: string): RestErrorBody {
  return {
    error: {
      code: error.code,
      class: error.entry.errorClass,
      message: error.message,
      requestId,
      ...(error.details.length > 0 ? { details: error.details } : {}),
    },
  };
}

/** The JSON-RPC shape of an error raised before the MCP handler ran (auth, size, content type);
 * `id` is the request's JSON-RPC id when it could be read, else null. */
export function renderJsonRpcError(
  error: GatewayError,
  requestId: string,
  id: string | number | null = null,
): unknown {
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: error.entry.jsonRpcCode,
      message: error.message,
      data: { code: error.code, class: error.entry.errorClass, requestId },
    },
  };
}
