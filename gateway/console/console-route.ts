// GET /console (issue 25, docs/console.md): the workspace console's page and its static files, public
// like /healthz because the page holds no data — it signs in with the key the user types and calls
// the ordinary /agent/* and /mcp endpoints with it. Registered only when `server.console.enabled`;
// otherwise /console is any unknown route. Every answer carries a strict CSP (no inline script or
// style, nothing from another origin but the trusted issuers' origins for the OAuth sign-in, no
// framing) and is revalidated by ETag, so an upgrade never mixes the files of two builds.
// /console/callback, the OAuth sign-in's redirect URI, serves the same page;
// /console/sign-in-options.json the protected-resource metadata (`{}` without `oauth`).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { protectedResourceMetadata } from '../auth/index.js';
import { GatewayError } from '../errors/index.js';
import type { GatewayConfig } from '../config/index.js';
import type { ConsoleAsset } from './console-assets.js';

/** The console's CSP; `authorizationServers` are the origins the OAuth sign-in may fetch from
 * (metadata, registration, token endpoint), none without an `oauth` section. */
export function consoleCsp(authorizationServers: readonly string[] = []): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    ["connect-src 'self'", ...authorizationServers].join(' '),
    "font-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export const CONSOLE_CSP = consoleCsp();

const cspCache = new WeakMap<GatewayConfig, string>();

/** connect-src for the trusted issuers' origins, from the request's config snapshot. */
function cspOf(config: GatewayConfig): string {
  let csp = cspCache.get(config);
  if (csp === undefined) {
    const origins = new Set<string>();
    if (config.oauth !== undefined)
      for (const workspace of config.workspaces)
        for (const issuer of workspace.identity?.issuers ?? []) origins.add(new URL(issuer.issuer).origin);
    csp = consoleCsp([...origins].sort());
    cspCache.set(config, csp);
  }
  return csp;
}

const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  // Revalidate every time: the ETag makes that a 304, and the modules of one build stay together.
  'cache-control': 'no-cache',
};

function send(request: FastifyRequest, reply: FastifyReply, asset: ConsoleAsset): FastifyReply {
  void reply
    .headers(SECURITY_HEADERS)
    .header('content-security-policy', cspOf(request.snapshot.config))
    .header('etag', asset.etag);
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
  // The protected-resource metadata for the sign-in view, `{}` without an `oauth` section: unlike
  // the well-known route it answers 200 on an API-key-only gateway, so the page needs no key to ask.
  app.get('/console/sign-in-options.json', options, async (request, reply) => {
    void reply.headers(SECURITY_HEADERS).header('content-security-policy', CONSOLE_CSP);
    return Promise.resolve(protectedResourceMetadata(request.snapshot.config) ?? {});
  });
  // The OAuth sign-in's redirect URI: the same page, which finishes the sign-in.
  app.get('/console/callback', options, async (request, reply) =>
    Promise.resolve(send(request, reply, index)),
  );
  app.get<{ Params: { '*': string } }>('/console/*', options, async (request, reply) => {
    const asset = assets.get(request.params['*']);
    // An unknown file is the ordinary 404 (nothing is read from disk for a request path).
    if (asset === undefined) throw new GatewayError('not_found');
    return Promise.resolve(send(request, reply, asset));
  });
}
