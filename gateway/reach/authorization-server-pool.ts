// The connections the gateway opens to authorization servers (issue 29: metadata, JWKS, RFC 7662
// introspection, client-credentials and token-exchange requests) come from pools of their own, so a
// stalled authorization server cannot hold sockets: an idle connection is closed after
// AUTHORIZATION_SERVER_IDLE_MS whatever its `Keep-Alive: timeout=` says (undici would otherwise keep
// it up to 10 minutes), and a request whose headers or body bytes stop coming is ended by the pool
// as well as by each caller's own deadline (`AbortSignal.timeout`), which closes its socket. A
// workspace under a tenant reach policy gets the same bounds from its guard's
// `fetch('authorization-server')`; the others share this unguarded pool. docs/security.md.
import type { Agent } from 'undici';
import { undici } from '../platform/undici-lazy.js';
import type { NetworkGuard } from './network-guard.js';

/** How long an idle connection to an authorization server is kept for the next request. */
export const AUTHORIZATION_SERVER_IDLE_MS = 4000;
/** No request to an authorization server waits longer than this for headers or for body bytes,
 * whatever deadline its caller set (callers set shorter ones: `oauth.fetchTimeoutMs`, the
 * source's connect time-out). */
export const AUTHORIZATION_SERVER_STALL_MS = 30_000;

export const AUTHORIZATION_SERVER_POOL: Agent.Options = {
  keepAliveTimeout: AUTHORIZATION_SERVER_IDLE_MS,
  keepAliveMaxTimeout: AUTHORIZATION_SERVER_IDLE_MS,
  headersTimeout: AUTHORIZATION_SERVER_STALL_MS,
  bodyTimeout: AUTHORIZATION_SERVER_STALL_MS,
  connectTimeout: 10_000,
  connections: 32,
};

/** fetch through `agent` (made on first use). */
export function fetchThrough(agent: () => Agent): typeof fetch {
  return (input, init) => {
    const undiciFetch = undici().fetch;
    return undiciFetch(input as Parameters<typeof undiciFetch>[0], {
      ...(init as Parameters<typeof undiciFetch>[1]),
      dispatcher: agent(),
    });
  };
}

/** The pool of workspaces without a reach policy; one per process, closed at shutdown. */
export class AuthorizationServerPool {
  private agent: Agent | undefined;
  readonly fetch: typeof fetch = fetchThrough(
    () => (this.agent ??= new (undici().Agent)(AUTHORIZATION_SERVER_POOL)),
  );

  /** The workspace's guarded fetch with the same bounds, or this pool's. */
  fetchFor(guard: NetworkGuard | undefined): typeof fetch {
    return guard?.fetch('authorization-server') ?? this.fetch;
  }

  async close(): Promise<void> {
    const agent = this.agent;
    this.agent = undefined;
    await agent?.close().catch(() => undefined);
  }
}
