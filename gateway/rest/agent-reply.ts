// Sends an agent endpoint's body in the negotiated format, with the usage hint header when enabled.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { encodeBody, negotiateFormat } from './response-format.js';
import { USAGE_HEADER, usageHeaderValue } from './usage-header.js';

export function sendAgentBody(
  request: FastifyRequest,
  reply: FastifyReply,
  body: unknown,
  bodyOption?: unknown,
  resultCount?: number,
): FastifyReply {
  const format = negotiateFormat({ query: request.query, bodyOption, accept: request.headers.accept });
  const { payload, contentType } = encodeBody(body, format);
  if (resultCount !== undefined && request.snapshot.config.knowledge.usageHints) {
    void reply.header(USAGE_HEADER, usageHeaderValue(resultCount, payload));
  }
  return reply.header('vary', 'Accept').type(contentType).send(payload);
}
