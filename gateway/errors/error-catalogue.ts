// The closed error catalogue (spec §7, STYLE 5). Every error the gateway emits has a code here;
// the code fixes the HTTP status, the error class, the JSON-RPC code used on the MCP face and
// where the error is emitted. Adding a code without an entry fails to compile. Gateway-specific
// JSON-RPC codes sit outside -32768…-32000, the range the MCP spec reserves (docs/mcp-2026.md §5).

/** The spec's four failure classes (§7 rule 1), plus `request` for the caller's own mistakes and
 * `internal` for faults of the gateway itself that no other class describes. */
export type ErrorClass =
  | 'proxy_authorization'
  | 'upstream_reachability'
  | 'upstream_authorization'
  | 'tool_execution'
  | 'request'
  | 'internal';

/** Where an error surfaces: an HTTP error response, an in-band JSON-RPC error (HTTP 200), or a
 * successful tool result carrying `isError: true`. */
export type EmitAs = 'http' | 'jsonrpc' | 'tool-result';

export interface CatalogueEntry {
  readonly status: number;
  readonly errorClass: ErrorClass;
  readonly jsonRpcCode: number;
  readonly emitAs: EmitAs;
  readonly message: string;
}

export type ErrorCode =
  | 'unauthenticated'
  | 'forbidden'
  | 'invalid_request'
  | 'invalid_json'
  | 'not_found'
  | 'method_not_allowed'
  | 'unsupported_media_type'
  | 'payload_too_large'
  | 'not_acceptable'
  | 'rate_limited'
  | 'upstream_unreachable'
  | 'upstream_timeout'
  | 'upstream_circuit_open'
  | 'upstream_unauthorized'
  | 'upstream_token_unavailable'
  | 'upstream_identity_required'
  | 'upstream_consent_required'
  | 'upstream_protocol_error'
  | 'upstream_response_too_large'
  | 'upstream_not_allowed'
  | 'identity_provider_unavailable'
  | 'guardrail_unavailable'
  | 'tool_execution_failed'
  | 'not_ready'
  | 'internal_error';

export const ERROR_CATALOGUE = {
  unauthenticated: {
    status: 401,
    errorClass: 'proxy_authorization',
    jsonRpcCode: -31001,
    emitAs: 'http',
    message: 'A valid API key is required: send Authorization: Bearer <key>.',
  },
  forbidden: {
    status: 403,
    errorClass: 'proxy_authorization',
    jsonRpcCode: -31003,
    emitAs: 'http',
    message: 'This API key lacks the permission this request needs.',
  },
  invalid_request: {
    status: 400,
    errorClass: 'request',
    jsonRpcCode: -32602,
    emitAs: 'http',
    message: 'The request is invalid.',
  },
  invalid_json: {
    status: 400,
    errorClass: 'request',
    jsonRpcCode: -32700,
    emitAs: 'http',
    message: 'The request body is not valid JSON.',
  },
  not_found: {
    status: 404,
    errorClass: 'request',
    jsonRpcCode: -32601,
    emitAs: 'http',
    message: 'No such endpoint.',
  },
  method_not_allowed: {
    status: 405,
    errorClass: 'request',
    jsonRpcCode: -32000,
    emitAs: 'http',
    message: 'This HTTP method is not allowed here.',
  },
  unsupported_media_type: {
    status: 415,
    errorClass: 'request',
    jsonRpcCode: -32000,
    emitAs: 'http',
    message: 'The request body must be application/json.',
  },
  payload_too_large: {
    status: 413,
    errorClass: 'request',
    jsonRpcCode: -32000,
    emitAs: 'http',
    message: 'The request body is larger than the configured limit.',
  },
  not_acceptable: {
    status: 406,
    errorClass: 'request',
    jsonRpcCode: -32000,
    emitAs: 'http',
    message: 'None of the accepted response types can be produced.',
  },
  rate_limited: {
    status: 429,
    errorClass: 'request',
    jsonRpcCode: -31018,
    emitAs: 'http',
    message: 'A rate or usage limit of this key or workspace is reached; retry after the Retry-After delay.',
  },
  upstream_unreachable: {
    status: 502,
    errorClass: 'upstream_reachability',
    jsonRpcCode: -31010,
    emitAs: 'jsonrpc',
    message: 'The upstream source could not be reached.',
  },
  upstream_timeout: {
    status: 504,
    errorClass: 'upstream_reachability',
    jsonRpcCode: -31011,
    emitAs: 'jsonrpc',
    message: 'The upstream source did not answer in time.',
  },
  upstream_circuit_open: {
    status: 503,
    errorClass: 'upstream_reachability',
    jsonRpcCode: -31012,
    emitAs: 'jsonrpc',
    message: 'The upstream source is failing; its circuit breaker is open.',
  },
  upstream_unauthorized: {
    status: 502,
    errorClass: 'upstream_authorization',
    jsonRpcCode: -31013,
    emitAs: 'jsonrpc',
    message: 'The upstream source rejected the gateway credentials.',
  },
  upstream_token_unavailable: {
    status: 502,
    errorClass: 'upstream_authorization',
    jsonRpcCode: -31020,
    emitAs: 'jsonrpc',
    message:
      "The gateway could not get an access token for the upstream source from the source's authorization server.",
  },
  upstream_identity_required: {
    status: 403,
    errorClass: 'upstream_authorization',
    jsonRpcCode: -31021,
    emitAs: 'jsonrpc',
    message:
      "This upstream source is called with a token exchanged for the caller's own: sign in with the identity provider (an API key cannot be exchanged).",
  },
  upstream_consent_required: {
    status: 200,
    errorClass: 'upstream_authorization',
    // The 2025-11-25 URLElicitationRequiredError; 2026 clients get an input_required result instead.
    jsonRpcCode: -32042,
    emitAs: 'jsonrpc',
    message:
      'This upstream source acts as you: connect your account there first (open the link the gateway gives, sign in and approve), then retry.',
  },
  upstream_protocol_error: {
    status: 502,
    errorClass: 'upstream_reachability',
    jsonRpcCode: -31014,
    emitAs: 'jsonrpc',
    message: 'The upstream source answered with something that is not valid MCP.',
  },
  upstream_response_too_large: {
    status: 502,
    errorClass: 'upstream_reachability',
    jsonRpcCode: -31017,
    emitAs: 'jsonrpc',
    message: "The upstream source's answer is larger than the source's limits.maxResponseBytes.",
  },
  upstream_not_allowed: {
    status: 502,
    errorClass: 'upstream_reachability',
    jsonRpcCode: -31019,
    emitAs: 'jsonrpc',
    message: "The gateway's tenant policy does not allow connecting to this upstream source.",
  },
  // The caller's token could not be checked because its authorization server (JWKS or introspection)
  // did not answer: not the caller's fault, so not a 401 (which tells a client to discard the token).
  // The class is the transient one of a dependency that could not be reached; the code says which.
  identity_provider_unavailable: {
    status: 503,
    errorClass: 'upstream_reachability',
    jsonRpcCode: -31022,
    emitAs: 'http',
    message:
      'The access token could not be checked: its authorization server cannot be reached. Keep the token and retry after the Retry-After delay.',
  },
  // A guardrail hook that fails closed (issue 41 part 5) did not answer, or answered nothing usable:
  // not the caller's fault and not the upstream's; a dependency of the gateway, transient.
  guardrail_unavailable: {
    status: 503,
    errorClass: 'upstream_reachability',
    jsonRpcCode: -31023,
    emitAs: 'jsonrpc',
    message: 'A guardrail this call must pass could not decide on it; the call was refused.',
  },
  tool_execution_failed: {
    status: 200,
    errorClass: 'tool_execution',
    jsonRpcCode: -31015,
    emitAs: 'tool-result',
    message: 'The tool reported an error.',
  },
  not_ready: {
    status: 503,
    errorClass: 'internal',
    jsonRpcCode: -31016,
    emitAs: 'http',
    message: 'The gateway is not ready.',
  },
  internal_error: {
    status: 500,
    errorClass: 'internal',
    jsonRpcCode: -32603,
    emitAs: 'http',
    message: 'The gateway failed unexpectedly.',
  },
} as const satisfies Record<ErrorCode, CatalogueEntry>;

export function catalogueEntry(code: ErrorCode): CatalogueEntry {
  return ERROR_CATALOGUE[code];
}
