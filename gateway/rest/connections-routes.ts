// A user's own connections to `user` sources (issue 42), under their key or token:
// GET /agent/connections lists the workspace's `user` sources the key may see, connected or not;
// POST /agent/connections/start begins consent at one of them (named, or by the ticket of an
// elicitation link) and answers the authorization URL with the browser-binding cookie;
// DELETE /agent/connections/:source revokes the caller's own connection, here and (RFC 7009) at the
// server that granted it. The principal is always the
// authenticated caller's: a ticket made for someone else is refused, never followed.
import type { FastifyInstance } from 'fastify';
import { canSeeSource, type Principal } from '../auth/index.js';
import type { UserConnections, UserSourceTarget } from '../connections/index.js';
import { GatewayError } from '../errors/index.js';
import { requirePrincipal } from '../edge/request-context.js';
import { noteAudit } from '../telemetry/audit-context.js';
import { sendAgentBody } from './agent-reply.js';
import { bindingCookie } from './consent-cookie.js';

export interface ConnectionRouteDeps {
  readonly connections: UserConnections;
  /** A `user` source of a workspace as configured now, with its network path; undefined otherwise. */
  readonly target: (workspace: string, source: string) => UserSourceTarget | undefined;
}

const NO_SOURCE = 'No source in your workspace connects per user under this name.';

function userSources(principal: Principal): string[] {
  return principal.workspace.mcpSources
    .filter((source) => source.credential?.type === 'user' && canSeeSource(principal, source.name))
    .map((source) => source.name);
}

function iso(ms: number | undefined): string | undefined {
  return ms === undefined ? undefined : new Date(ms).toISOString();
}

function startBody(body: unknown): { source?: string; ticket?: string } {
  const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const { source, ticket } = fields;
  const valid = (value: unknown) =>
    value === undefined || (typeof value === 'string' && value.length <= 8192);
  if (!valid(source) || !valid(ticket) || (source === undefined) === (ticket === undefined))
    throw new GatewayError('invalid_request', 'Give exactly one of source and ticket (strings).');
  return fields;
}

export function registerConnectionRoutes(app: FastifyInstance, deps: ConnectionRouteDeps): void {
  const { connections } = deps;

  app.get('/agent/connections', async (request, reply) => {
    const principal = requirePrincipal(request.principal);
    const summaries = new Map(
      (await connections.list(principal.workspace.name, principal.keyId)).map((row) => [row.source, row]),
    );
    const rows = userSources(principal).map((source) => {
      const row = summaries.get(source);
      return {
        source,
        connected: row !== undefined,
        ...(row === undefined
          ? {}
          : {
              issuer: row.issuer,
              ...(row.scope === undefined ? {} : { scope: row.scope }),
              connected_at: iso(row.connectedAtMs),
              ...(row.refreshedAtMs === undefined ? {} : { refreshed_at: iso(row.refreshedAtMs) }),
              ...(row.expiresAtMs === undefined ? {} : { expires_at: iso(row.expiresAtMs) }),
            }),
      };
    });
    return sendAgentBody(request, reply, { connections: rows }, undefined, rows.length);
  });

  app.post('/agent/connections/start', async (request, reply) => {
    const principal = requirePrincipal(request.principal);
    if (!connections.canConsent)
      throw new GatewayError(
        'invalid_request',
        'This gateway has no server.publicUrl, so it cannot take a sign-in back: an admin must set it.',
      );
    const { source: named, ticket } = startBody(request.body);
    let source = named;
    if (ticket !== undefined) {
      const opened = connections.seal.openTicket(ticket);
      if (opened === undefined)
        throw new GatewayError(
          'invalid_request',
          'This link has expired or is not valid: call the tool again for a new one.',
        );
      if (opened.workspace !== principal.workspace.name || opened.principal !== principal.keyId)
        throw new GatewayError(
          'forbidden',
          'This link was made for another user: sign in as the user who called the tool.',
        );
      source = opened.source;
    }
    noteAudit({ source, target: { kind: 'source', name: source } });
    const target =
      source !== undefined && userSources(principal).includes(source)
        ? deps.target(principal.workspace.name, source)
        : undefined;
    if (source === undefined || target === undefined) throw new GatewayError('not_found', NO_SOURCE);
    const key = { workspace: principal.workspace.name, principal: principal.keyId, source };
    let started;
    try {
      started = await connections.begin(key, target);
    } catch (error) {
      throw new GatewayError(
        'upstream_token_unavailable',
        `The gateway could not start the sign-in at ${source}'s authorization server.`,
        { cause: error },
      );
    }
    void reply.header('set-cookie', bindingCookie(started.cookie, connections.callbackUrl));
    void reply.header('cache-control', 'no-store');
    return { source, authorize_url: started.url };
  });

  app.delete<{ Params: { source: string } }>('/agent/connections/:source', async (request) => {
    const principal = requirePrincipal(request.principal);
    const source = request.params.source;
    noteAudit({ source, target: { kind: 'source', name: source } });
    if (!userSources(principal).includes(source)) throw new GatewayError('not_found', NO_SOURCE);
    const key = { workspace: principal.workspace.name, principal: principal.keyId, source };
    const { removed, atServer } = await connections.disconnect(key, deps.target(key.workspace, source));
    return { source, revoked: removed, revoked_at_server: atServer };
  });
}
