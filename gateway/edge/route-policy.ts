// Route policy, declared on each route and read by the gate (issue 8.1): protection is decided on
// the route the router matched, never on the raw URL, so `/%61gent/tools`, `/agent//tools` or an
// absolute-form target reach the same gate as the canonical path. Deny by default: only a route
// that declares `access: 'public'` (health, readiness) is served without a key, and a path that
// matches no route is authenticated before it is answered 404, so routes cannot be probed.
import type { FastifyRequest } from 'fastify';
import { routeOf } from '../platform/matched-route.js';
import type { ConfigSnapshot } from '../config/index.js';

/** `oauth-metadata`: public when the gateway is an OAuth resource server, else like `key`. */
export type RouteAccess = 'public' | 'key' | 'oauth-metadata';
/** Which wire shape errors take on this route: the REST error body or a JSON-RPC error. */
export type RouteFace = 'rest' | 'mcp';
/** `skip`: the route leaves no audit record (the health probes only, docs/audit.md); every other
 * route, public ones included, is recorded. */
export type RouteAudit = 'record' | 'skip';

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: RouteAccess;
    face?: RouteFace;
    audit?: RouteAudit;
  }
}

/** Whether the request leaves an audit record: every route but the ones declared `audit: 'skip'`. */
export function isAudited(request: FastifyRequest): boolean {
  return routeOf(request).config.audit !== 'skip';
}

export function isPublicRoute(request: FastifyRequest): boolean {
  const access = routeOf(request).config.access;
  // The snapshot is taken in an onRequest hook; hooks before it see none (and a protected route).
  const snapshot = request.snapshot as ConfigSnapshot | null;
  return access === 'public' || (access === 'oauth-metadata' && snapshot?.config.oauth !== undefined);
}

/** /mcp, or a workspace's own MCP endpoint /w/<workspace>/mcp (D24). */
export const MCP_PATH = /^\/(w\/[^/?]+\/)?mcp(\?|$)/;

/** The error shape only (never protection): an unmatched method on an MCP endpoint still answers
 * in JSON-RPC. */
export function isMcpFace(request: FastifyRequest): boolean {
  if (routeOf(request).config.face === 'mcp') return true;
  return request.is404 && MCP_PATH.test(request.url);
}
