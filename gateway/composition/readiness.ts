// When a listening gateway becomes ready: at once in the file shape, once the config is complete in
// the Kubernetes shape (the API is listed first, D10). Becoming ready turns /readyz on, lets the tool
// indexer follow the config, discovers every source once and starts the knowledge sync.
import type { Logger as PinoLogger } from 'pino';
import type { ConfigSource } from '../config/index.js';
import type { ToolCatalog } from '../discovery/index.js';
import type { SyncEngine } from '../knowledge/index.js';
import type { Lifecycle } from '../edge/health-routes.js';
import type { ToolIndexer } from '../tool-search/index.js';

export interface Readiness {
  /** The gateway is stopping: a config completed from now on makes it ready no more. */
  cancel(): void;
}

export function readyWhenSynced(
  synced: Promise<void> | undefined,
  parts: {
    readonly lifecycle: Lifecycle;
    readonly config: ConfigSource;
    readonly catalog: ToolCatalog;
    readonly sync: SyncEngine;
    readonly toolIndexer: ToolIndexer;
    readonly logger: PinoLogger;
    readonly keyHint: (workspace: string) => string;
  },
): Readiness {
  let stopped = false;
  const becomeReady = () => {
    if (stopped) return;
    parts.lifecycle.ready = true;
    parts.toolIndexer.follow();
    warmUp(parts.catalog, parts.config, parts.logger, parts.keyHint);
    parts.sync.schedule(parts.config.current().config);
  };
  if (synced === undefined) becomeReady();
  else void synced.then(becomeReady);
  return {
    cancel: () => {
      stopped = true;
    },
  };
}

/** Discovers every source once in the background so /agent/sources has a status right away and the
 * tools of workspaces with embeddings are embedded before their first search (the ToolIndexer hears
 * the lists). */
function warmUp(
  catalog: ToolCatalog,
  config: ConfigSource,
  logger: PinoLogger,
  keyHint: (workspace: string) => string,
): void {
  const workspaces = config.current().config.workspaces;
  for (const workspace of workspaces) {
    void catalog.workspaceCatalog(workspace).then(({ sources }) => {
      for (const [name, state] of sources)
        logger.info(
          { workspace: workspace.name, source: name, status: state.status, tools: state.toolCount },
          'source discovered',
        );
    });
    if (workspace.keys.length === 0) {
      logger.info({ workspace: workspace.name }, keyHint(workspace.name));
    }
  }
}
