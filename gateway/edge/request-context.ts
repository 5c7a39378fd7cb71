// What each request carries through the pipeline: the config snapshot taken when it arrived (a hot
// reload never changes it midway), on protected routes the authenticated principal, and on the MCP
// face the JSON-RPC id once known (so errors raised before the handler can still echo it).
import type { Principal } from '../auth/index.js';
import type { ConfigSnapshot } from '../config/index.js';

declare module 'fastify' {
  interface FastifyRequest {
    snapshot: ConfigSnapshot;
    principal: Principal | undefined;
    rpcId: string | number | null;
    /** The error class of the answer (catalogue class; also in-band MCP errors), for metrics. */
    errorClass: string | undefined;
    /** The catalogue code, or the JSON-RPC code of a relayed upstream error, for the request log
     * (issue 28.9: in-band failures answer HTTP 200 and were invisible there). Never content. */
    errorCode: string | undefined;
  }
}

export function requirePrincipal(principal: Principal | undefined): Principal {
  if (principal === undefined) throw new Error('route reached without authentication');
  return principal;
}
