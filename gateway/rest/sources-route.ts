// GET /agent/sources: the connected sources of the caller's workspace that its key may see, with
// their live status. POST /agent/sources/:id/refresh re-discovers one source now (write access).
import type { FastifyInstance } from 'fastify';
import { canSeeSource, hasAccess } from '../auth/index.js';
import type { ToolCatalog } from '../discovery/index.js';
import { GatewayError } from '../errors/index.js';
import { requirePrincipal } from '../platform/request-context.js';
import { sendAgentBody } from './agent-reply.js';
import { sourceRecord } from './source-records.js';

export function registerSourcesRoutes(app: FastifyInstance, catalog: ToolCatalog): void {
  app.get('/agent/sources', async (request, reply) => {
    const principal = requirePrincipal(request.principal);
    const workspace = principal.workspace;
    const visible = (name: string) => canSeeSource(principal, name);
    const { sources } = await catalog.workspaceCatalog(workspace, visible);
    const records = workspace.mcpSources
      .filter((s) => visible(s.name))
      .map((s) => sourceRecord(s, sources.get(s.name)!, catalog.breakerState(workspace.name, s.name)));
    return sendAgentBody(request, reply, { workspace: workspace.name, sources: records });
  });

  app.post<{ Params: { id: string } }>('/agent/sources/:id/refresh', async (request, reply) => {
    const principal = requirePrincipal(request.principal);
    if (!hasAccess(principal, 'write')) {
      throw new GatewayError('forbidden', 'Refreshing a source needs an API key with write access.', {
        headers: {
          'www-authenticate': 'Bearer realm="agent-gateway", error="insufficient_scope", scope="write"',
        },
      });
    }
    const id = request.params.id;
    const source = principal.workspace.mcpSources.find(
      (s) => s.name === id && canSeeSource(principal, s.name),
    );
    if (source === undefined)
      throw new GatewayError('not_found', 'No source with this id in your workspace.');
    catalog.invalidate(principal.workspace.name, source.name);
    const { sources } = await catalog.workspaceCatalog(principal.workspace, (name) => name === source.name);
    return sendAgentBody(request, reply, {
      source: sourceRecord(
        source,
        sources.get(source.name)!,
        catalog.breakerState(principal.workspace.name, source.name),
      ),
    });
  });
}
