// The gate in front of every route that is not declared public (spec §5, issue 8.1): Host/Origin
// check, then Bearer authentication on every request. Protection follows the matched route (see
// route-policy.ts), so no spelling of a path can reach a handler unauthenticated. Refusals close the
// connection, so an unauthenticated client cannot hold a socket by trickling a body it declared.
// Failures are logged by reason, never by value.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { authenticate, type AuthFailureReason } from '../auth/index.js';
import { GatewayError } from '../errors/index.js';
import { hostOriginProblem } from './host-origin-check.js';
import { peekRequestId, UNAUTHENTICATED_PEEK } from './peek-request-id.js';
import { isMcpFace, isPublicRoute } from './route-policy.js';
import { credentialDenial } from '../telemetry/audit-record.js';
import { noteDenial } from '../telemetry/audit-context.js';

const MESSAGES: Record<AuthFailureReason, string> = {
  missing: 'Missing API key: send Authorization: Bearer <API key>.',
  'not-bearer': 'Unsupported credentials: the Authorization header must use the Bearer scheme.',
  malformed: 'The API key is malformed (wrong format or checksum).',
  unknown: 'The API key is not valid.',
  revoked: 'The API key has been revoked.',
  expired: 'The API key has expired.',
};

export function challengeHeader(reason: AuthFailureReason): string {
  const base = 'Bearer realm="agent-gateway"';
  if (reason === 'missing' || reason === 'not-bearer') return base;
  return `${base}, error="invalid_token", error_description="${MESSAGES[reason]}"`;
}

async function refuse(request: FastifyRequest, error: GatewayError): Promise<never> {
  // MCP clients match errors to requests by id; read it from a small body, briefly (issue 8.11).
  if (isMcpFace(request)) request.rpcId = await peekRequestId(request.raw, UNAUTHENTICATED_PEEK);
  throw error;
}

export function authHook(now: () => Date) {
  return async function onRequest(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (isPublicRoute(request)) return;
    const problem = hostOriginProblem(
      request.snapshot.config.server,
      request.headers.host,
      request.headers.origin,
    );
    if (problem !== undefined) {
      request.log.warn({ reason: problem }, 'request refused');
      noteDenial(problem === 'host-not-allowed' ? 'host_not_allowed' : 'origin_not_allowed');
      void reply.header('connection', 'close');
      await refuse(
        request,
        new GatewayError(
          'forbidden',
          problem === 'host-not-allowed'
            ? 'Requests for this Host are not allowed.'
            : 'Requests from this Origin are not allowed.',
        ),
      );
    }
    const outcome = authenticate(request.headers.authorization, request.snapshot.config, now());
    if (!outcome.ok) {
      request.log.info({ reason: outcome.reason }, 'authentication failed');
      noteDenial(credentialDenial(outcome.reason));
      void reply.header('connection', 'close');
      await refuse(
        request,
        new GatewayError('unauthenticated', MESSAGES[outcome.reason], {
          headers: { 'www-authenticate': challengeHeader(outcome.reason) },
        }),
      );
    }
    if (outcome.ok) request.principal = outcome.principal;
  };
}
