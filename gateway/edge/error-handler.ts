// Turns anything thrown while handling a request into the one documented REST error body, or a
// JSON-RPC error on the MCP face. Fastify's own errors (bad JSON, wrong content type, oversized body)
// are mapped onto catalogue codes. A client that went away mid-body is normal traffic, not a fault:
// it is logged at debug, never as an unhandled error (issue 8.10).
import { wellFormed } from '../platform/well-formed-text.js';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import {
  GatewayError,
  isGatewayError,
  renderJsonRpcError,
  renderRestError,
  type ErrorCode,
} from '../errors/index.js';
import { isMcpFace } from './route-policy.js';
import { allowedMethods } from './allowed-methods.js';
import { annotateRequest } from '../telemetry/tracing.js';
import { count } from '../telemetry/metrics.js';

const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'invalid_request',
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_json',
};

const CLIENT_GONE = new Set(['ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ERR_STREAM_PREMATURE_CLOSE']);

/** Whether the error only says the client closed the connection while we read its request. */
export function isClientAbort(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && CLIENT_GONE.has(code);
}

export function toGatewayError(error: unknown): GatewayError {
  if (isGatewayError(error)) return error;
  const fastifyError = error as Partial<FastifyError> | undefined;
  const mapped = fastifyError?.code === undefined ? undefined : FASTIFY_CODES[fastifyError.code];
  if (mapped !== undefined) return new GatewayError(mapped, undefined, { cause: error });
  if (error instanceof SyntaxError && fastifyError?.statusCode === 400)
    return new GatewayError('invalid_json', undefined, { cause: error });
  if (fastifyError?.statusCode === 413)
    return new GatewayError('payload_too_large', undefined, { cause: error });
  if (fastifyError?.statusCode === 415)
    return new GatewayError('unsupported_media_type', undefined, { cause: error });
  // Any other refusal of Fastify's about the request itself (e.g. QUERY without Content-Type) is
  // the caller's mistake, never a 500 (issue 28.2).
  if (
    typeof fastifyError?.code === 'string' &&
    fastifyError.code.startsWith('FST_') &&
    typeof fastifyError.statusCode === 'number' &&
    fastifyError.statusCode >= 400 &&
    fastifyError.statusCode < 500
  )
    return new GatewayError('invalid_request', 'The request cannot be served as sent.', { cause: error });
  if (isClientAbort(error))
    return new GatewayError('invalid_request', 'The request body was not received completely.', {
      cause: error,
    });
  return new GatewayError('internal_error', undefined, { cause: error });
}

export function errorHandler(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  // Refusals of ours (401 first, deny by default) stand; Fastify's own errors on an unmatched
  // method of a known path become the 405 the path deserves.
  const gatewayError = (isGatewayError(error) ? undefined : methodRefusal(request)) ?? toGatewayError(error);
  annotateRequest({ 'error.type': gatewayError.entry.errorClass, 'agw.error.code': gatewayError.code });
  request.errorClass = gatewayError.entry.errorClass;
  request.errorCode = gatewayError.code;
  if (gatewayError.code === 'rate_limited')
    count('agw.ratelimit.refusals', {
      policy: /"([^"]+)"/.exec(gatewayError.headers['ratelimit-policy'] ?? '')?.[1] ?? 'unknown',
    });
  const cause = error as { name?: unknown; code?: unknown } | undefined;
  const kind = {
    errName: typeof cause?.name === 'string' ? cause.name : 'Error',
    errCode: typeof cause?.code === 'string' ? cause.code : undefined,
  };
  if (isClientAbort(error)) {
    request.log.debug(kind, 'client closed the connection');
  } else if (gatewayError.code === 'internal_error') {
    // Log the error's kind only: messages of unknown errors may quote payloads.
    request.log.error(kind, 'unhandled error');
  }
  for (const [name, value] of Object.entries(gatewayError.headers)) void reply.header(name, value);
  if (isMcpFace(request)) {
    // The MCP face answers in JSON-RPC so MCP clients can read the error.
    return reply
      .code(gatewayError.entry.status)
      .type('application/json')
      .send(renderJsonRpcError(gatewayError, request.id, request.rpcId));
  }
  return reply
    .code(gatewayError.entry.status)
    .type('application/json; charset=utf-8')
    .send(`${JSON.stringify(wellFormed(renderRestError(gatewayError, request.id)))}\n`);
}

/** An unmatched method on a path that exists is 405 whatever failed first (QUERY's body rules). */
function methodRefusal(request: FastifyRequest): GatewayError | undefined {
  if (!request.is404) return undefined;
  const allow = allowedMethods(request.server, request);
  return allow.length === 0
    ? undefined
    : new GatewayError('method_not_allowed', undefined, { headers: { allow: allow.join(', ') } });
}
