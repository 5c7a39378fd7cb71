// GET /agent/tools: every tool the key can see, named as the MCP endpoint exposes it, with the
// permission a call needs (read or write) and whether this key may call it. With `?query=` (issue 23)
// the same tools ranked for a task by the tool search engine, best first, at most `limit`.
import type { FastifyInstance } from 'fastify';
import { canSeeSource, canSeeTool, hasAccess, type Principal } from '../auth/index.js';
import { exposeTools, type CatalogTool, type ToolCatalog } from '../discovery/index.js';
import { GatewayError } from '../errors/index.js';
import { requirePrincipal } from '../edge/request-context.js';
import { LISTING_BOUNDS, parseToolQuery, retrievalRecord, type ToolSearch } from '../tool-search/index.js';
import { sendAgentBody } from './agent-reply.js';

function record(principal: Principal, tool: CatalogTool, name: string) {
  return {
    name,
    source: tool.source,
    permission: tool.permission,
    callable: hasAccess(principal, tool.permission),
    description: tool.description,
  };
}

function rankingRequest(query: Record<string, unknown>) {
  const problems: { path: string; problem: string }[] = [];
  if (query['query'] === undefined) {
    for (const name of ['limit', 'mode'])
      if (query[name] !== undefined) problems.push({ path: name, problem: 'is only allowed with query' });
    if (problems.length > 0) throw invalid(problems);
    return undefined;
  }
  const parsed = parseToolQuery(
    { query: query['query'], limit: query['limit'], mode: query['mode'] },
    LISTING_BOUNDS,
  );
  if (!parsed.ok) problems.push(...parsed.problems);
  if (problems.length > 0 || !parsed.ok) throw invalid(problems);
  return parsed.request;
}

function invalid(details: { path: string; problem: string }[]): GatewayError {
  return new GatewayError(
    'invalid_request',
    `Invalid query parameters: ${details.map((d) => `${d.path} ${d.problem}`).join('; ')}.`,
    { details },
  );
}

export function registerToolsRoute(app: FastifyInstance, catalog: ToolCatalog, search: ToolSearch): void {
  app.get('/agent/tools', async (request, reply) => {
    const principal = requirePrincipal(request.principal);
    const ranking = rankingRequest(request.query as Record<string, unknown>);
    const { tools, sources } = await catalog.workspaceCatalog(principal.workspace, (name) =>
      canSeeSource(principal, name),
    );
    // Named as /mcp names them for this key; a tool left out there (a collision) is left out here.
    const named = exposeTools(
      principal,
      tools.filter((tool) => canSeeTool(principal, tool.source, tool.name)),
    );
    const names = new Map(named.map(({ tool, name }) => [tool.name, name] as const));
    const view = named.map(({ tool }) => tool);
    const recordOf = (tool: CatalogTool) => record(principal, tool, names.get(tool.name) ?? tool.name);
    const unavailable = [...sources]
      .filter(([, state]) => state.status === 'unavailable')
      .map(([id, state]) => ({ id, error_code: state.error?.code ?? null }));
    const extra = unavailable.length > 0 ? { unavailable_sources: unavailable } : {};
    if (ranking === undefined) return sendAgentBody(request, reply, { tools: view.map(recordOf), ...extra });
    // The view is the key's before anything is ranked: the listing's tools, nothing else.
    const found = await search.rank(principal.workspace.name, view, ranking);
    const retrieval = retrievalRecord(found, ranking);
    return sendAgentBody(request, reply, {
      query: ranking.query,
      count: found.tools.length,
      ...(retrieval === undefined ? {} : { retrieval }),
      tools: found.tools.map(({ tool, foundBy }) => ({
        ...recordOf(tool),
        ...(retrieval === undefined ? {} : { found_by: foundBy }),
      })),
      ...extra,
    });
  });
}
