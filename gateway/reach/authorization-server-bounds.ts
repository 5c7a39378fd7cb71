// The bounds on connections to authorization servers (issue 29: metadata, JWKS, RFC 7662
// introspection, client-credentials and token-exchange requests), so a stalled authorization server
// cannot hold sockets: an idle connection is closed after AUTHORIZATION_SERVER_IDLE_MS whatever its
// `Keep-Alive: timeout=` says (undici would otherwise keep it up to 10 minutes), and a request whose
// headers or body bytes stop coming is ended by the pool as well as by each caller's own deadline
// (`AbortSignal.timeout`), which closes its socket. Both the unguarded pool
// (authorization-server-pool.ts) and a guard's checked pool (network-guard.ts) are built with them.
import type { Agent } from 'undici';

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
