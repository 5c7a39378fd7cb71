// The request target must be a plain path (RFC 9112 origin-form, issue 8.1). An absolute-form
// target (`GET http://evil.example/agent/tools`) is meant for proxies and would let the authority
// disagree with the Host header the DNS-rebinding check reads; `*` (asterisk-form) has no route.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../errors/index.js';

export function requestTargetProblem(rawUrl: string | undefined): string | undefined {
  if (rawUrl === undefined || !rawUrl.startsWith('/') || rawUrl.startsWith('//'))
    return 'The request target must be a path starting with a single "/".';
  return undefined;
}

/** An onRequest hook; `done` style, as it never waits (issue 45). */
export function checkRequestTarget(
  request: FastifyRequest,
  _reply: FastifyReply,
  done: (error?: Error) => void,
): void {
  const problem = requestTargetProblem(request.raw.url);
  done(problem === undefined ? undefined : new GatewayError('invalid_request', problem));
}
