// GET /agent/sources: the connected sources of the caller's workspace that its key may see — MCP
// sources with live status and data sources with sync state; GET /agent/sources/:id one of them.
// POST /agent/sources/:id/refresh re-discovers an MCP source (answered when done: it is quick) or
// starts a sync of a data source and answers 202 at once (issue 39: a big source takes minutes); the
// caller follows the 202's Location, GET /agent/sources/:id. Refreshing needs write access.
import type { FastifyInstance } from 'fastify';
import { canSeeSource, canSeeTool, hasAccess, type Principal } from '../auth/index.js';
import { namespacedToolName, toolNames, type PinVerdict, type ToolCatalog } from '../discovery/index.js';
import { GatewayError } from '../errors/index.js';
import type { SyncEngine } from '../knowledge/index.js';
import { requirePrincipal } from '../edge/request-context.js';
import { noteDenial, noteTarget } from '../telemetry/audit-context.js';
import { sendAgentBody } from './agent-reply.js';
import { dataSourceRecord, sourceRecord } from './source-records.js';

const NEEDS_WRITE = new GatewayError('forbidden', 'Refreshing a source needs an API key with write access.', {
  headers: { 'www-authenticate': 'Bearer realm="agent-gateway", error="insufficient_scope", scope="write"' },
});

const NOT_FOUND = 'No source with this id in your workspace.';

/** Where a data source's refresh is followed (the Location of its 202): that source's own record. */
const sourcePath = (id: string) => `/agent/sources/${encodeURIComponent(id)}`;

/** `local`: this replica's memory only; `redis`: shared with the other replicas; `redis-unavailable`:
 * configured but unreachable right now (serving from local state). */
export type SharedStateStatus = 'local' | 'redis' | 'redis-unavailable';

export function registerSourcesRoutes(
  app: FastifyInstance,
  catalog: ToolCatalog,
  sync: SyncEngine,
  sharedState: () => SharedStateStatus,
): void {
  app.get('/agent/sources', async (request, reply) => {
    const principal = requirePrincipal(request.principal);
    const workspace = principal.workspace;
    const visible = (name: string) => canSeeSource(principal, name);
    const { sources, tools } = await catalog.workspaceCatalog(workspace, visible);
    // Tools an unprefixed source could not expose to this key (prefix never: the name is taken).
    const collisions = toolNames(
      principal,
      tools.filter((tool) => canSeeTool(principal, tool.source, tool.name)),
    ).collisions;
    const records = [
      ...workspace.mcpSources
        .filter((s) => visible(s.name))
        .map((s) =>
          sourceRecord(
            s,
            sources.get(s.name)!,
            catalog.breakerState(workspace.name, s.name),
            collisions.filter((collision) => collision.source === s.name),
            pinsFor(catalog, principal, s.name),
          ),
        ),
      ...workspace.dataSources
        .filter((s) => visible(s.name))
        .map((s) => dataSourceRecord(s, sync.state(workspace.name, s.name))),
    ];
    // Which version of this workspace's configuration answered: the operator's rendered revision
    // (Kubernetes), or the file's reload counter (embedded).
    const snapshot = request.snapshot;
    const revision = snapshot.workspaceRevisions?.get(workspace.name) ?? `file-${snapshot.revision}`;
    return sendAgentBody(request, reply, {
      workspace: workspace.name,
      config_revision: revision,
      shared_state: sharedState(),
      sources: records,
    });
  });

  // One source's record, as the list shows it: what a refresh's 202 points at. A source the key may
  // not see answers exactly like one that does not exist (no existence oracle).
  app.get<{ Params: { id: string } }>('/agent/sources/:id', async (request, reply) => {
    const principal = requirePrincipal(request.principal);
    const workspace = principal.workspace;
    const id = request.params.id;
    const mcp = workspace.mcpSources.find((s) => s.name === id && canSeeSource(principal, s.name));
    if (mcp !== undefined) {
      const { sources } = await catalog.workspaceCatalog(workspace, (name) => name === mcp.name);
      const pins = pinsFor(catalog, principal, mcp.name);
      return sendAgentBody(request, reply, {
        workspace: workspace.name,
        // What an admin reviews and approves (agent-gateway tools approve): each unapproved tool
        // with what changed, its description as the model would see it and the digest to approve.
        unapproved: pins.unapproved.map((tool) => ({
          tool: tool.tool,
          change: tool.change,
          fields: tool.fields === undefined ? null : tool.fields.join(', '),
          digest: tool.digest,
          approved_digest: tool.approvedDigest ?? null,
          description: tool.description,
        })),
        source: sourceRecord(
          mcp,
          sources.get(mcp.name)!,
          catalog.breakerState(workspace.name, mcp.name),
          [],
          pins,
        ),
      });
    }
    const data = workspace.dataSources.find((s) => s.name === id && canSeeSource(principal, s.name));
    if (data === undefined) throw new GatewayError('not_found', NOT_FOUND);
    return sendAgentBody(request, reply, {
      source: dataSourceRecord(data, sync.state(workspace.name, data.name)),
    });
  });

  app.post<{ Params: { id: string } }>('/agent/sources/:id/refresh', async (request, reply) => {
    const principal = requirePrincipal(request.principal);
    const named = [...principal.workspace.mcpSources, ...principal.workspace.dataSources];
    const asked = request.params.id;
    noteTarget(
      'source',
      named.find((s) => s.name === asked),
      canSeeSource(principal, asked),
      { requested: asked },
    );
    if (!hasAccess(principal, 'write')) noteDenial('write_required');
    if (!hasAccess(principal, 'write')) {
      // An OAuth caller that more scopes would make a writer is told which (issue 29).
      const stepUp = principal.oidc?.stepUp;
      if (stepUp === undefined) throw NEEDS_WRITE;
      throw new GatewayError('forbidden', 'Refreshing a source needs write access.', {
        headers: { 'www-authenticate': stepUp.challenge },
      });
    }
    const id = request.params.id;
    const workspace = principal.workspace;
    const mcp = workspace.mcpSources.find((s) => s.name === id && canSeeSource(principal, s.name));
    if (mcp !== undefined) {
      await catalog.invalidate(workspace.name, mcp.name);
      // Asked for explicitly: a failing source is listed now, not left to its background probe.
      const { sources } = await catalog.workspaceCatalog(workspace, (name) => name === mcp.name, {
        retryFailing: true,
      });
      return sendAgentBody(request, reply, {
        source: sourceRecord(
          mcp,
          sources.get(mcp.name)!,
          catalog.breakerState(workspace.name, mcp.name),
          [],
          pinsFor(catalog, principal, mcp.name),
        ),
      });
    }
    const data = workspace.dataSources.find((s) => s.name === id && canSeeSource(principal, s.name));
    if (data === undefined) throw new GatewayError('not_found', NOT_FOUND);
    // On-demand sync, answered before it ends: `started`, or `queued` when one is running (this one
    // runs after it, so a change made meanwhile is seen). The record shows `syncing` until it ends,
    // then what it changed (`last_added`…) and the embedding pass; GET /agent/sources/:id follows it.
    const started = sync.requestSync(workspace.name, data);
    const follow = sourcePath(data.name);
    void reply.code(202).header('location', follow);
    return sendAgentBody(request, reply, {
      source: dataSourceRecord(data, sync.state(workspace.name, data.name)),
      sync: started,
      follow,
    });
  });
}

/** The source's pinning verdict narrowed to the tools this key may see. */
function pinsFor(catalog: ToolCatalog, principal: Principal, source: string): PinVerdict {
  const verdict = catalog.pins.verdict(principal.workspace.name, source);
  return {
    mode: verdict.mode,
    unapproved: verdict.unapproved.filter((tool) =>
      canSeeTool(principal, source, namespacedToolName(source, tool.tool)),
    ),
  };
}
