// Sends an agent endpoint's body in the negotiated format.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { encodeBody, negotiateFormat } from './response-format.js';

export function sendAgentBody(
  request: FastifyRequest,
  reply: FastifyReply,
  body: unknown,
  bodyOption?: unknown,
): FastifyReply {
  const format = negotiateFormat({ query: request.query, bodyOption, accept: request.headers.accept });
  const { payload, contentType } = encodeBody(body, format);
  return reply.header('vary', 'Accept').type(contentType).send(payload);
}
