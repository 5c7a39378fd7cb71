// What each request carries through the pipeline: the config snapshot taken when it arrived (a hot
// reload never changes it midway) and, on protected paths, the authenticated principal.
import type { Principal } from '../auth/index.js';
import type { ConfigSnapshot } from '../config/index.js';

declare module 'fastify' {
  interface FastifyRequest {
    snapshot: ConfigSnapshot;
    principal: Principal | undefined;
  }
}

export function requirePrincipal(principal: Principal | undefined): Principal {
  if (principal === undefined) throw new Error('route reached without authentication');
  return principal;
}
