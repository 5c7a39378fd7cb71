// What the inbound ladder reads of a fastify request on /mcp (the method, the MCP headers, the raw
// body bytes), in one place for every route that runs the ladder (mcp-route.ts and the
// subscription routes, which take `subscriptions/listen` before the ordinary handler).
import type { FastifyRequest } from 'fastify';
import type { InboundHttp } from './inbound-ladder.js';

/** The first value of a request header (repeated headers are refused earlier, header-policy.ts). */
export function headerOf(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export function inboundHttpOf(request: FastifyRequest): InboundHttp {
  return {
    httpMethod: request.method,
    contentType: headerOf(request, 'content-type'),
    protocolVersionHeader: headerOf(request, 'mcp-protocol-version'),
    methodHeader: headerOf(request, 'mcp-method'),
    nameHeader: headerOf(request, 'mcp-name'),
    body: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
  };
}
