// Route policy, declared on each route and read by the gate (issue 8.1): protection is decided on
// the route the router matched, never on the raw URL, so `/%61gent/tools`, `/agent//tools` or an
// absolute-form target reach the same gate as the canonical path. Deny by default: only a route
// that declares `access: 'public'` (health, readiness) is served without a key, and a path that
// matches no route is authenticated before it is answered 404, so routes cannot be probed.
import type { FastifyRequest } from 'fastify';

export type RouteAccess = 'public' | 'key';
/** Which wire shape errors take on this route: the REST error body or a JSON-RPC error. */
export type RouteFace = 'rest' | 'mcp';

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: RouteAccess;
    face?: RouteFace;
  }
}

export function isPublicRoute(request: FastifyRequest): boolean {
  return request.routeOptions.config.access === 'public';
}

/** The error shape only (never protection): an unmatched method on /mcp still answers in JSON-RPC. */
export function isMcpFace(request: FastifyRequest): boolean {
  if (request.routeOptions.config.face === 'mcp') return true;
  return request.is404 && (request.url === '/mcp' || request.url.startsWith('/mcp?'));
}
