// RFC 9728 protected-resource metadata (issue 29; MCP authorization; issue 37, D24): served without a
// credential at /.well-known/oauth-protected-resource and under it — the path-suffixed form of the
// shared resource (…/oauth-protected-resource/mcp: the default workspace's issuers, none without
// one) and of each workspace's own resource (…/oauth-protected-resource/w/<name>/mcp: that
// workspace's issuers only; the same 404 for a workspace that does not exist or has no identity
// section). From the config snapshot of the request. Without the `oauth` section the route is
// protected like any other, so API-key-only gateways answer as before (401 without a key, 404 with
// one).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { METADATA_PATH, protectedResourceMetadata } from '../auth/index.js';
import { GatewayError } from '../errors/index.js';

/** A workspace resource's path suffix (behind any prefix `oauth.resource` has): …/w/<name>/mcp. */
const WORKSPACE_SUFFIX = /\/w\/([^/]+)\/mcp$/;

async function metadata(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  await Promise.resolve();
  const suffix = (request.params as { '*'?: string })['*'] ?? '';
  const workspace = WORKSPACE_SUFFIX.exec(`/${suffix}`)?.[1];
  const document = protectedResourceMetadata(request.snapshot.config, workspace);
  if (document === undefined) throw new GatewayError('not_found');
  void reply.header('cache-control', 'public, max-age=300');
  return document;
}

export function registerProtectedResourceRoutes(app: FastifyInstance): void {
  const options = { config: { access: 'oauth-metadata' as const } };
  app.get(METADATA_PATH, options, metadata);
  app.get(`${METADATA_PATH}/*`, options, metadata);
}
