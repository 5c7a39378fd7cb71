// tools/list over every source of the caller's workspace (spec §2.4, §4.2 rules 2 and 4): only the
// tools this key may call, named by their sources' prefix policies (tool-names.ts), deterministic order. The result depends on the
// key, so it is always `private`; a source that is down is left out and named in `_meta`. A key with
// `toolDisclosure: search` gets the gateway's own tools only (issue 23).
import { catalogFor, type ToolCatalog } from '../discovery/index.js';
import type { KnowledgeService } from '../knowledge/index.js';
import { disclosureToolsFor } from './disclosure-tools.js';
import { knowledgeToolsFor } from './knowledge-tools.js';
import { McpError } from './jsonrpc.js';
import type { McpHandler } from './mcp-request.js';
import { META, RPC } from '../protocol/index.js';
import { uiLinkNamer } from './item-names.js';
import type { FanOutDeps } from './source-fanout.js';
import { listedTools, renameUiLinks, uiLinkClaims } from './ui-links.js';

/** How long a client may reuse the merged list: the gateway's own cache lifetime for raw lists. */
export const TOOLS_LIST_TTL_MS = 30_000;

export function toolsList(catalog: ToolCatalog, knowledge: KnowledgeService, deps: FanOutDeps): McpHandler {
  return async (request) => {
    if (request.params['cursor'] !== undefined) {
      throw new McpError(
        200,
        RPC.invalidParams,
        'Invalid params: unknown cursor (the gateway returns tools/list in one page).',
      );
    }
    if (request.principal.toolDisclosure === 'search') {
      // Only the gateway's own tools: no upstream is listed, so none can delay or change this answer.
      return {
        tools: [
          ...knowledgeToolsFor(request.principal, knowledge),
          ...disclosureToolsFor(request.principal),
        ].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
        ttlMs: TOOLS_LIST_TTL_MS,
        cacheScope: 'private',
      };
    }
    const { tools, sources, ttlMs, taskSources } = await catalogFor(catalog, request.principal);
    // Names are assigned over what the key can see, then narrowed to what it may call.
    const listed = listedTools(request.principal, tools);
    // MCP Apps links name the UI resource as this key reads it (issue 43).
    const links = uiLinkClaims(listed);
    const linkName = links.length === 0 ? undefined : await uiLinkNamer(deps, request.principal, links);
    const unavailable = [...sources]
      .filter(([, state]) => state.status === 'unavailable')
      .map(([source, state]) => ({ source, code: state.error?.code, class: state.error?.errorClass }));
    return {
      tools: [
        ...knowledgeToolsFor(request.principal, knowledge),
        ...listed.map(({ tool, name }) => {
          const definition =
            linkName === undefined
              ? tool.definition
              : renameUiLinks(tool.definition, (uri) => linkName(tool.source, uri));
          return {
            ...(request.era === 'legacy'
              ? withLegacyTaskSupport(definition, taskSources.has(tool.source))
              : definition),
            name,
          };
        }),
      ].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
      ttlMs: unavailable.length > 0 ? 0 : Math.min(ttlMs, TOOLS_LIST_TTL_MS),
      cacheScope: 'private',
      ...(unavailable.length > 0 ? { _meta: { [META.unavailableSources]: unavailable } } : {}),
    };
  };
}

/** A tool as a 2025 client sees it (issue 43): a tool of a source that runs tasks may be called as
 * one (`execution.taskSupport`: the 2025 upstream's own, `optional` for a 2026 upstream, which
 * decides per call); any other tool may not (the field left out: forbidden). */
export function withLegacyTaskSupport<T extends Record<string, unknown>>(
  definition: T,
  taskSource: boolean,
): T {
  const execution = definition['execution'];
  const current =
    typeof execution === 'object' && execution !== null ? (execution as Record<string, unknown>) : undefined;
  const declared = current?.['taskSupport'];
  if (taskSource) {
    if (declared === 'optional' || declared === 'required' || declared === 'forbidden') return definition;
    return { ...definition, execution: { ...(current ?? {}), taskSupport: 'optional' } };
  }
  if (current === undefined || declared === undefined) return definition;
  const { taskSupport: _dropped, ...rest } = current;
  return { ...definition, execution: rest };
}
