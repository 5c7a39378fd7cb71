// GET /console (issue 25, docs/console.md): the workspace console's page and its static files, public
// like /healthz because the page holds no data — it signs in with the key the user types and calls
// the ordinary /agent/* and /mcp endpoints with it. Registered only when `server.console.enabled`;
// otherwise /console is any unknown route. Every answer carries a strict CSP (no inline script or
// style, nothing from another origin, no framing) and is revalidated by ETag, so an upgrade never
// mixes the files of two builds.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../errors/index.js';
import type { ConsoleAsset } from './console-assets.js';

export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  // Revalidate every time: the ETag makes that a 304, and the modules of one build stay together.
  'cache-control': 'no-cache',
};

function send(request: FastifyRequest, reply: FastifyReply, asset: ConsoleAsset): FastifyReply {
  void reply.headers(SECURITY_HEADERS).header('etag', asset.etag);
  const match = request.headers['if-none-match'];
  if (match !== undefined && match.split(',').some((tag) => tag.trim() === asset.etag))
    return reply.code(304).send();
  return reply.type(asset.contentType).send(asset.body);
}

export function registerConsoleRoutes(app: FastifyInstance, assets: ReadonlyMap<string, ConsoleAsset>): void {
  const index = assets.get('index.html');
  if (index === undefined) throw new Error('the console build has no index.html');
  const options = { config: { access: 'public' as const } };
  app.get('/console', options, async (request, reply) => Promise.resolve(send(request, reply, index)));
  app.get('/console/', options, async (request, reply) => Promise.resolve(send(request, reply, index)));
  app.get<{ Params: { '*': string } }>('/console/*', options, async (request, reply) => {
    const asset = assets.get(request.params['*']);
    // An unknown file is the ordinary 404 (nothing is read from disk for a request path).
    if (asset === undefined) throw new GatewayError('not_found');
    return Promise.resolve(send(request, reply, asset));
  });
}
