// GET /agent/tools: every tool the key can see, named as the MCP endpoint exposes it, with the
// permission a call needs (read or write) and whether this key may call it.
import type { FastifyInstance } from 'fastify';
import { canSeeSource, canSeeTool, hasAccess } from '../auth/index.js';
import type { ToolCatalog } from '../discovery/index.js';
import { requirePrincipal } from '../platform/request-context.js';
import { sendAgentBody } from './agent-reply.js';

export function registerToolsRoute(app: FastifyInstance, catalog: ToolCatalog): void {
  app.get('/agent/tools', async (request, reply) => {
    const principal = requirePrincipal(request.principal);
    const { tools, sources } = await catalog.workspaceCatalog(principal.workspace, (name) =>
      canSeeSource(principal, name),
    );
    const records = tools
      .filter((tool) => canSeeTool(principal, tool.source, tool.name))
      .map((tool) => ({
        name: tool.name,
        source: tool.source,
        permission: tool.permission,
        callable: hasAccess(principal, tool.permission),
        description: tool.description,
      }));
    const unavailable = [...sources]
      .filter(([, state]) => state.status === 'unavailable')
      .map(([id, state]) => ({ id, error_code: state.error?.code ?? null }));
    return sendAgentBody(request, reply, {
      tools: records,
      ...(unavailable.length > 0 ? { unavailable_sources: unavailable } : {}),
    });
  });
}
