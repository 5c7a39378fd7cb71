// GET /console (issue 25, docs/console.md): the workspace console's page and its static files, public
// like /healthz because the page holds no data — it signs in with the key the user types and calls
// the ordinary /agent/* and /mcp endpoints with it. Registered only when `server.console.enabled`;
// otherwise /console is any unknown route. Every answer carries a strict CSP (no inline script or
// style, nothing from another origin but the trusted issuers' origins for the OAuth sign-in, no
// framing) and is revalidated by ETag, so an upgrade never mixes the files of two builds.
// /console/callback, the OAuth sign-in's redirect URI, serves the same page;
// /console/sign-in-options.json the protected-resource metadata (`{}` without `oauth`). The page is
// also served for one workspace at /w/<name>/console (D24): it then signs in to that workspace's
// own resource, and its sign-in options and CSP name that workspace's issuers only; at /console,
// the default workspace's (none without one). No page shows another tenant's identity providers.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { identityWorkspace, protectedResourceMetadata, resourceOf } from '../auth/index.js';
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

const cspCache = new WeakMap<GatewayConfig, Map<string, string>>();

/** The workspace whose issuers a page may sign in with: the one it was opened for, else the
 * default workspace (a name that is no workspace with identity gives none, like an unknown one). */
function signInWorkspace(config: GatewayConfig, workspace: string | undefined) {
  const name = workspace ?? config.oauth?.defaultWorkspace;
  return name === undefined ? undefined : identityWorkspace(config, name);
}

/** connect-src for the origins of the issuers the page may sign in with, from the request's
 * config snapshot. */
function cspOf(config: GatewayConfig, workspace: string | undefined): string {
  let byWorkspace = cspCache.get(config);
  if (byWorkspace === undefined) {
    byWorkspace = new Map();
    cspCache.set(config, byWorkspace);
  }
  const signing = signInWorkspace(config, workspace);
  const slot = signing?.name ?? '';
  let csp = byWorkspace.get(slot);
  if (csp === undefined) {
    const origins = new Set(signing?.identity?.issuers.map((issuer) => new URL(issuer.issuer).origin));
    csp = consoleCsp([...origins].sort());
    byWorkspace.set(slot, csp);
  }
  return csp;
}

/** The page's sign-in options: the metadata of the resource it signs in to, `{}` when there is
 * none (no `oauth` section, or a workspace that does not exist or has no identity, alike). */
function signInOptions(config: GatewayConfig, workspace: string | undefined): unknown {
  if (workspace === undefined) return protectedResourceMetadata(config) ?? {};
  if (resourceOf(config) === undefined) return {};
  return protectedResourceMetadata(config, workspace) ?? {};
}

/** The workspace a /w/<name>/console request was opened for. */
function workspaceParam(request: FastifyRequest): string | undefined {
  return (request.params as { workspace?: string }).workspace;
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
    .header('content-security-policy', cspOf(request.snapshot.config, workspaceParam(request)))
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
  const page = async (request: FastifyRequest, reply: FastifyReply) =>
    Promise.resolve(send(request, reply, index));
  // The protected-resource metadata for the sign-in view, `{}` without an `oauth` section: unlike
  // the well-known route it answers 200 on an API-key-only gateway, so the page needs no key to ask.
  const signIn = async (request: FastifyRequest, reply: FastifyReply) => {
    void reply.headers(SECURITY_HEADERS).header('content-security-policy', CONSOLE_CSP);
    return Promise.resolve(signInOptions(request.snapshot.config, workspaceParam(request)));
  };
  for (const base of ['/console', '/w/:workspace/console']) {
    app.get(base, options, page);
    app.get(`${base}/`, options, page);
    app.get(`${base}/sign-in-options.json`, options, signIn);
    // The OAuth sign-in's redirect URI: the same page, which finishes the sign-in.
    app.get(`${base}/callback`, options, page);
  }
  app.get<{ Params: { '*': string } }>('/console/*', options, async (request, reply) => {
    const asset = assets.get(request.params['*']);
    // An unknown file is the ordinary 404 (nothing is read from disk for a request path).
    if (asset === undefined) throw new GatewayError('not_found');
    return Promise.resolve(send(request, reply, asset));
  });
}
