// RFC 9728 protected-resource metadata (issue 29; MCP authorization): served without a credential
// at /.well-known/oauth-protected-resource and under it (the path-suffixed form for /mcp,
// …/oauth-protected-resource/mcp), from the config snapshot of the request. Without the `oauth`
// section the route is protected like any other, so API-key-only gateways answer as before (401
// without a key, 404 with one).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { METADATA_PATH, protectedResourceMetadata } from '../auth/index.js';
import { GatewayError } from '../errors/index.js';

async function metadata(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  await Promise.resolve();
  const document = protectedResourceMetadata(request.snapshot.config);
  if (document === undefined) throw new GatewayError('not_found');
  void reply.header('cache-control', 'public, max-age=300');
  return document;
}

export function registerProtectedResourceRoutes(app: FastifyInstance): void {
  const options = { config: { access: 'oauth-metadata' as const } };
  app.get(METADATA_PATH, options, metadata);
  app.get(`${METADATA_PATH}/*`, options, metadata);
}
