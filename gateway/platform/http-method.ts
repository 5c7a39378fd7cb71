// HTTP methods as the edge sees them (issue 28.2, 28.5): Node's parser accepts any token as a
// method, so whatever a caller sends must neither reach a metric label as itself (one series per
// invented method) nor end in a 500. Known methods are the OpenTelemetry HTTP conventions' list;
// every other method is `_OTHER` in telemetry, and a path that exists for other methods answers 405
// with `Allow` (the MCP endpoint only takes POST).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { MCP_PATH } from './route-policy.js';

const KNOWN = new Set(['CONNECT', 'DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT', 'TRACE']);
const ROUTABLE = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;

/** The method as a bounded label value (OpenTelemetry: `_OTHER` for methods outside the known set). */
export function methodLabel(method: string): string {
  return KNOWN.has(method) ? method : '_OTHER';
}

/** The request path without query string. */
export function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}

/** The methods a path is served with, or [] when no route has this path at all. */
export function allowedMethods(app: FastifyInstance, request: FastifyRequest): string[] {
  const path = pathOf(request.url);
  if (MCP_PATH.test(path)) return ['POST'];
  return ROUTABLE.filter((method) => app.hasRoute({ method, url: path }));
}
