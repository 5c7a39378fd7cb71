// The request target must be a plain path (RFC 9112 origin-form, issue 8.1). An absolute-form
// target (`GET http://evil.example/agent/tools`) is meant for proxies and would let the authority
// disagree with the Host header the DNS-rebinding check reads; `*` (asterisk-form) has no route.
import type { FastifyRequest } from 'fastify';
import { GatewayError } from '../errors/index.js';

export function requestTargetProblem(rawUrl: string | undefined): string | undefined {
  if (rawUrl === undefined || !rawUrl.startsWith('/') || rawUrl.startsWith('//'))
    return 'The request target must be a path starting with a single "/".';
  return undefined;
}

export async function checkRequestTarget(request: FastifyRequest): Promise<void> {
  const problem = requestTargetProblem(request.raw.url);
  if (problem !== undefined) throw new GatewayError('invalid_request', problem);
  await Promise.resolve();
}
