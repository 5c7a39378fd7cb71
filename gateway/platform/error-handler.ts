// Turns anything thrown while handling a request into the one documented REST error body. Fastify's
// own errors (bad JSON, wrong content type, oversized body) are mapped onto catalogue codes.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import {
  GatewayError,
  isGatewayError,
  renderJsonRpcError,
  renderRestError,
  type ErrorCode,
} from '../errors/index.js';

const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'invalid_request',
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_json',
};

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
  return new GatewayError('internal_error', undefined, { cause: error });
}

export function errorHandler(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const gatewayError = toGatewayError(error);
  if (gatewayError.code === 'internal_error') {
    // Log the error's kind and stack frames only: messages of unknown errors may quote payloads.
    const cause = error as { name?: unknown; code?: unknown } | undefined;
    request.log.error(
      {
        errName: typeof cause?.name === 'string' ? cause.name : 'Error',
        errCode: typeof cause?.code === 'string' ? cause.code : undefined,
      },
      'unhandled error',
    );
  }
  for (const [name, value] of Object.entries(gatewayError.headers)) void reply.header(name, value);
  if (request.url === '/mcp' || request.url.startsWith('/mcp?') || request.url.startsWith('/mcp/')) {
    // The MCP face answers in JSON-RPC so MCP clients can read the error (id unknown at this point).
    return reply
      .code(gatewayError.entry.status)
      .type('application/json')
      .send(renderJsonRpcError(gatewayError, request.id));
  }
  return reply
    .code(gatewayError.entry.status)
    .type('application/json; charset=utf-8')
    .send(renderRestError(gatewayError, request.id));
}
