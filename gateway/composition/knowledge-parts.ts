// The knowledge side of a replica, built once: the knowledge store (SQLite or PostgreSQL) and its
// sync engine, each workspace's connectors and embeddings provider (through that workspace's reach
// policy, D19), the KnowledgeService the faces search, and tool search with its background indexer.
import type { Logger as PinoLogger } from 'pino';
import type { ConfigSource, DataSourceConfig, SecretReader } from '../config/index.js';
import {
  chatAnswerer,
  connectorFor,
  embeddingProviderFor,
  KnowledgeService,
  SyncEngine,
  WorkspaceEmbeddings,
  type KnowledgeStore,
} from '../knowledge/index.js';
import { openKnowledgeStore } from '../knowledge/open-store.js';
import type { TenantReach } from '../reach/index.js';
import { ToolIndexer, ToolSearch } from '../tool-search/index.js';
import { reachOf, workspaceScope } from './tenant-reach.js';
import type { UpstreamParts } from './upstream-parts.js';

export interface KnowledgeParts {
  readonly store: KnowledgeStore;
  readonly sync: SyncEngine;
  readonly knowledge: KnowledgeService;
  readonly toolSearch: ToolSearch;
  readonly toolIndexer: ToolIndexer;
}

export async function openKnowledge(options: {
  readonly config: ConfigSource;
  readonly secrets: SecretReader;
  readonly logger: PinoLogger;
  readonly reach: TenantReach;
  readonly upstream: UpstreamParts;
}): Promise<KnowledgeParts> {
  const { config, secrets, logger, reach } = options;
  const { pool, breakers, catalog, upstreamTokens } = options.upstream;
  const { store, lock } = await openKnowledgeStore(config.current().config.knowledge, secrets, logger);
  const connectorFactory = (source: DataSourceConfig, workspace: string) =>
    connectorFor(source, {
      secrets,
      tokens: upstreamTokens,
      workspace,
      ...reachOf(reach, workspaceScope(config, workspace)),
      mcp: (name) => {
        const mcpSource = config
          .current()
          .config.workspaces.find((w) => w.name === workspace)
          ?.mcpSources.find((s) => s.name === name);
        if (mcpSource === undefined) return Promise.reject(new Error(`no MCP source ${name}`));
        return breakers.runDiscovery(workspace, mcpSource, () => pool.get(workspace, mcpSource));
      },
    });
  // Each workspace's embeddings provider goes through that workspace's reach policy, as its
  // connectors do: a tenant's embeddings endpoint is an address it names.
  const embeddings = new WorkspaceEmbeddings(
    () => config.current().config,
    (settings, workspace) => {
      const guard = reach.guard(workspaceScope(config, workspace));
      return embeddingProviderFor(settings, {
        secrets,
        ...(guard === undefined ? {} : { fetch: guard.fetch() }),
      });
    },
  );
  const sync = new SyncEngine(store, lock, logger, connectorFactory, embeddings);
  // Tools are embedded as they are discovered (issue 37): the indexer hears the catalog's lists and,
  // once following the config, discovers the workspaces with embeddings that a change adds or alters.
  const toolSearch = new ToolSearch(embeddings, { logger });
  const toolIndexer = new ToolIndexer(catalog, toolSearch.vectors, () => config.current().config, logger);
  const knowledge = new KnowledgeService(store, {
    logger,
    answerer: (answerer) => chatAnswerer(answerer, secrets),
    embeddings,
  });
  return { store, sync, knowledge, toolSearch, toolIndexer };
}
