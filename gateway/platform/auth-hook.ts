// The gate in front of /agent/* and /mcp (spec §5): Origin check, then Bearer authentication on
// every request. Health and readiness stay open. Failures are logged by reason, never by value.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { authenticate, type AuthFailureReason } from '../auth/index.js';
import { GatewayError } from '../errors/index.js';
import { hostOriginProblem } from './host-origin-check.js';

const PROTECTED = /^\/(agent(\/|$|\?)|mcp(\/|$|\?))/;

const MESSAGES: Record<AuthFailureReason, string> = {
  missing: 'Missing credentials: send Authorization: Bearer <API key>.',
  'not-bearer': 'Unsupported credentials: the Authorization header must use the Bearer scheme.',
  malformed: 'The API key is malformed (wrong format or checksum).',
  unknown: 'The API key is not valid.',
  revoked: 'The API key has been revoked.',
  expired: 'The API key has expired.',
};

export function isProtectedPath(url: string): boolean {
  return PROTECTED.test(url);
}

export function challengeHeader(reason: AuthFailureReason): string {
  const base = 'Bearer realm="agent-gateway"';
  if (reason === 'missing' || reason === 'not-bearer') return base;
  return `${base}, error="invalid_token", error_description="${MESSAGES[reason]}"`;
}

export function authHook(now: () => Date) {
  return async function onRequest(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    if (!isProtectedPath(request.url)) return;
    const problem = hostOriginProblem(
      request.snapshot.config.server,
      request.headers.host,
      request.headers.origin,
    );
    if (problem !== undefined) {
      request.log.warn({ reason: problem }, 'request refused');
      throw new GatewayError(
        'forbidden',
        problem === 'host-not-allowed'
          ? 'Requests for this Host are not allowed.'
          : 'Requests from this Origin are not allowed.',
      );
    }
    const outcome = authenticate(request.headers.authorization, request.snapshot.config, now());
    if (!outcome.ok) {
      request.log.info({ reason: outcome.reason }, 'authentication failed');
      throw new GatewayError('unauthenticated', MESSAGES[outcome.reason], {
        headers: { 'www-authenticate': challengeHeader(outcome.reason) },
      });
    }
    request.principal = outcome.principal;
    await Promise.resolve();
  };
}
