// The route fastify's router matched for a request, read once (issue 45). Fastify builds a new
// `routeOptions` object (thirteen fields and a constraint lookup) on every read, and a request reads
// it about nine times across the hooks and the handler; the route cannot change after routing, so
// the first read is kept on the request. A leaf helper: the edge, limits and telemetry all read it.
import type { FastifyContextConfig, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /** What `routeOf` read, kept for the rest of the request (declared null by the app). */
    matchedRoute: MatchedRoute | null;
  }
}

/** The route the router matched: its path pattern (undefined when none matched) and config. */
export interface MatchedRoute {
  readonly url: string | undefined;
  readonly config: FastifyContextConfig;
}

export function routeOf(request: FastifyRequest): MatchedRoute {
  // `??=`: a request of an app that did not declare the property (a test's own instance) works too.
  request.matchedRoute ??= { url: request.routeOptions.url, config: request.routeOptions.config };
  return request.matchedRoute;
}
