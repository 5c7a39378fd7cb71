// The gate in front of every route that is not declared public (spec §5, issue 8.1): Host/Origin
// check, then Bearer authentication on every request. Protection follows the matched route (see
// route-policy.ts), so no spelling of a path can reach a handler unauthenticated. Refusals close the
// connection, so an unauthenticated client cannot hold a socket by trickling a body it declared.
// Failures are logged by reason, never by value. An OAuth caller's token sealed for token exchange
// (auth/caller-token.ts) is forgotten when the response closes. Which protected resource a request
// addresses also follows the matched route (D24): /mcp the shared one, /w/:workspace/mcp that
// workspace's, every other route the one a token's audience names.
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  authenticateBearer,
  BY_AUDIENCE,
  forgetCallerToken,
  pathResourceUri,
  resourceOf,
  SHARED_TARGET,
  unauthorizedChallenge,
  WORKSPACE_MCP_ROUTE,
  type AuthFailureReason,
  type OAuthAuthenticator,
  type OAuthFailure,
  type ResourceTarget,
} from '../auth/index.js';
import type { GatewayConfig } from '../config/index.js';
import { GatewayError } from '../errors/index.js';
import { hostOriginProblem } from './host-origin-check.js';
import { peekRequest, UNAUTHENTICATED_PEEK } from './peek-request-id.js';
import { isMcpFace, isPublicRoute } from './route-policy.js';
import { credentialDenial, refusedMcpMethod } from '../telemetry/audit-record.js';
import { noteAudit, noteDenial } from '../telemetry/audit-context.js';
import { routeOf } from '../platform/matched-route.js';

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

/** The protected resource the matched route serves. */
function targetOf(request: FastifyRequest): ResourceTarget {
  const route = routeOf(request).url;
  if (route === '/mcp') return SHARED_TARGET;
  if (route === WORKSPACE_MCP_ROUTE)
    return { kind: 'workspace', name: (request.params as { workspace: string }).workspace };
  return BY_AUDIENCE;
}

/** The resource a 401 names: a workspace endpoint's own (by its path alone), else the shared one. */
function challengedResource(config: GatewayConfig, target: ResourceTarget): string | undefined {
  if (target.kind === 'workspace') return pathResourceUri(config, target.name) ?? resourceOf(config);
  return resourceOf(config);
}

/** With OAuth on, every 401 names the protected-resource metadata (RFC 9728 §5). */
function challengeFor(
  config: GatewayConfig,
  face: 'mcp' | 'rest',
  reason: AuthFailureReason,
  resource: string | undefined,
): string {
  const presented =
    reason === 'missing' || reason === 'not-bearer' ? undefined : { description: MESSAGES[reason] };
  return unauthorizedChallenge(config, face, presented, resource) ?? challengeHeader(reason);
}

const INVALID_TOKEN = 'The access token is not valid.';
const NOT_ADMITTED = 'This identity is not admitted to this workspace.';
/** An authorization server that did not answer (JWKS or introspection) says nothing about the token:
 * a 503 with Retry-After, never `invalid_token`, which would make the client discard it. A JWKS that
 * failed to load is fetched again after a second; a few seconds let a brief outage pass. */
const PROVIDER_OUTAGES: ReadonlySet<OAuthFailure> = new Set([
  'keys-unavailable',
  'introspection-failed',
  // The issuer's introspection budget is spent (an unknown-token storm): the token may be good.
  'introspection-busy',
]);
const PROVIDER_RETRY_AFTER_S = 5;

function oauthRefusal(
  config: GatewayConfig,
  face: 'mcp' | 'rest',
  reason: OAuthFailure,
  resource: string | undefined,
): GatewayError {
  if (reason === 'no-workspace') return new GatewayError('forbidden', NOT_ADMITTED);
  if (PROVIDER_OUTAGES.has(reason))
    return new GatewayError('identity_provider_unavailable', undefined, {
      headers: { 'retry-after': String(PROVIDER_RETRY_AFTER_S) },
    });
  return new GatewayError('unauthenticated', INVALID_TOKEN, {
    headers: {
      'www-authenticate': unauthorizedChallenge(config, face, { description: INVALID_TOKEN }, resource) ?? '',
    },
  });
}

async function refuse(request: FastifyRequest, error: GatewayError): Promise<never> {
  // MCP clients match errors to requests by id; read it from a small body, briefly (issue 8.11). The
  // method it names goes to the audit record only (a known name, else `unknown`).
  if (isMcpFace(request)) {
    const peeked = await peekRequest(request.raw, UNAUTHENTICATED_PEEK);
    request.rpcId = peeked.id;
    const method = refusedMcpMethod(peeked.method, request.headers['mcp-method']);
    if (method !== undefined) noteAudit({ method });
  }
  throw error;
}

export function authHook(now: () => Date, oauth?: OAuthAuthenticator) {
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
    const config = request.snapshot.config;
    const face = isMcpFace(request) ? 'mcp' : 'rest';
    const target = targetOf(request);
    const outcome = await authenticateBearer(
      request.headers.authorization,
      config,
      now(),
      oauth,
      face,
      target,
    );
    if (!outcome.ok && outcome.kind === 'key') {
      request.log.info({ reason: outcome.reason }, 'authentication failed');
      noteDenial(credentialDenial(outcome.reason));
      void reply.header('connection', 'close');
      await refuse(
        request,
        new GatewayError('unauthenticated', MESSAGES[outcome.reason], {
          headers: {
            'www-authenticate': challengeFor(
              config,
              face,
              outcome.reason,
              challengedResource(config, target),
            ),
          },
        }),
      );
    }
    if (!outcome.ok && outcome.kind === 'oauth') {
      // The reason goes to the log; the caller gets a plain answer, with no hint of which
      // workspaces exist.
      request.log.info({ reason: outcome.reason, credential: 'oauth' }, 'authentication failed');
      noteDenial(credentialDenial(outcome.reason));
      void reply.header('connection', 'close');
      await refuse(request, oauthRefusal(config, face, outcome.reason, challengedResource(config, target)));
    }
    if (outcome.ok) {
      const principal = outcome.principal;
      request.principal = principal;
      // Work the request started (a pooled connection, a detached promise) keeps its async context;
      // the token in it must not outlive the request.
      if (principal.oidc !== undefined) reply.raw.once('close', () => forgetCallerToken(principal));
    }
  };
}
