// Lists resources or prompts from every source the key may see, in parallel: from the discovery
// cache when the list is fresh there, else each hop through its breaker with its list time-out. A
// failing source is left out and reported; one the catalog knows as failing (its probe runs in the
// background) is left out at once, without contacting it or waiting on it.
import { canSeeSource, type Principal } from '../auth/index.js';
import type { UserConnections } from '../connections/index.js';
import type { McpSourceConfig } from '../config/index.js';
import type { ListKind, SourceListCache } from '../discovery/index.js';
import { catalogueEntry, GatewayError, type ErrorCode } from '../errors/index.js';
import {
  classifyUpstreamError,
  withSessionRecovery,
  type BreakerRegistry,
  type ItemList,
  type UpstreamConnection,
  type UpstreamPool,
} from '../upstream/index.js';

export interface FanOutDeps {
  readonly pool: UpstreamPool;
  readonly breakers: BreakerRegistry;
  readonly lists: SourceListCache;
  /** The code of a source known to be failing (ToolCatalog.failingCode), else undefined. */
  readonly failing?: (workspace: string, source: McpSourceConfig) => { readonly code: ErrorCode } | undefined;
  /** Users' connections to `user` sources (issue 42): reads of such a source need one. */
  readonly connections?: UserConnections | undefined;
  /** The UI resources the tools a key is shown link to (MCP Apps, issue 43; ui-links.ts), which
   * claim their URIs like listed resources. */
  readonly uiLinks?: (
    principal: Principal,
  ) => Promise<readonly { source: string; item: Record<string, unknown> }[]>;
}

export interface FanOutResult<T> {
  readonly items: readonly { readonly source: string; readonly item: T }[];
  readonly unavailable: readonly { readonly source: string; readonly code: string; readonly class: string }[];
}

export async function fanOut(
  deps: FanOutDeps,
  principal: Principal,
  kind: ListKind,
  list: (connection: UpstreamConnection, signal: AbortSignal) => Promise<ItemList>,
  only: (source: McpSourceConfig) => boolean = () => true,
): Promise<FanOutResult<Record<string, unknown>>> {
  const workspace = principal.workspace.name;
  const sources = principal.workspace.mcpSources.filter((s) => canSeeSource(principal, s.name) && only(s));
  const settled = await Promise.allSettled(
    sources.map((source: McpSourceConfig) => {
      const failing = deps.failing?.(workspace, source);
      // Reported like a failed listing, with the code of the failure that made it failing.
      if (failing !== undefined) return Promise.reject(new GatewayError(failing.code));
      return deps.lists.list(workspace, source, kind, () =>
        deps.breakers.runDiscovery(workspace, source, () =>
          withSessionRecovery(deps.pool, workspace, source, (connection) =>
            list(connection, AbortSignal.timeout(source.timeouts.listMs)),
          ),
        ),
      );
    }),
  );
  const items: { source: string; item: Record<string, unknown> }[] = [];
  const unavailable: { source: string; code: string; class: string }[] = [];
  settled.forEach((outcome, index) => {
    const source = (sources[index] as McpSourceConfig).name;
    if (outcome.status === 'fulfilled') {
      for (const item of outcome.value) items.push({ source, item });
    } else {
      const code = classifyUpstreamError(outcome.reason);
      unavailable.push({ source, code, class: catalogueEntry(code).errorClass });
    }
  });
  return { items, unavailable };
}
