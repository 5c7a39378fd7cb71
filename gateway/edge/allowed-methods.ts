// The methods a path is served with (issue 28.2, 28.5): a path that exists for other methods answers
// 405 with `Allow` rather than a 404 or a 500, whatever method token the caller invented (the MCP
// endpoint only takes POST). Read from the router, so it cannot drift from the routes.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { pathOf } from '../platform/http-method.js';
import { MCP_PATH } from './route-policy.js';

const ROUTABLE = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;

/** The methods a path is served with, or [] when no route has this path at all. */
export function allowedMethods(app: FastifyInstance, request: FastifyRequest): string[] {
  const path = pathOf(request.url);
  if (MCP_PATH.test(path)) return ['POST'];
  return ROUTABLE.filter((method) => app.hasRoute({ method, url: path }));
}
