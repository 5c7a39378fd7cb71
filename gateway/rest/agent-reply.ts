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
): FastifyReply | Promise<FastifyReply> {
  const format = negotiateFormat({ query: request.query, bodyOption, accept: request.headers.accept });
  const { payload, contentType } = encodeBody(body, format);
  void reply.header('vary', 'Accept').type(contentType);
  if (resultCount === undefined || !request.snapshot.config.knowledge.usageHints) return reply.send(payload);
  const usage = usageHeaderValue(resultCount, payload);
  if (typeof usage === 'string') return reply.header(USAGE_HEADER, usage).send(payload);
  // The tokenizer is still loading (usage hints just turned on): the reply waits for it.
  return usage.then((value) => reply.header(USAGE_HEADER, value).send(payload));
}
