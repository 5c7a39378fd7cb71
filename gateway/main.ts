// The composition root (STYLE 4): loads config, builds every dependency once, builds the app,
// listens, and shuts down in order — readiness false, drain in-flight requests, close upstream
// connections, stop watching config — under a hard deadline.
import type { Logger as PinoLogger } from 'pino';
import { buildApp } from './app.js';
import {
  FileConfigSource,
  processSecretReader,
  type ConfigSource,
  type DataSourceConfig,
} from './config/index.js';
import {
  MemoryDiscoveryCache,
  SourceStatusRegistry,
  ToolCatalog,
  type CachedToolList,
} from './discovery/index.js';
import { chatAnswerer, connectorFor, KnowledgeService, SyncEngine } from './knowledge/index.js';
import { openKnowledgeStore } from './knowledge/open-store.js';
import { ElicitationBridge } from './mcp/index.js';
import type { Lifecycle } from './platform/health-routes.js';
import { InflightTracker } from './platform/inflight-tracker.js';
import { BreakerRegistry, UpstreamPool } from './upstream/index.js';
import { GATEWAY_VERSION } from './version.js';

export interface ServeOptions {
  readonly configPath: string;
  readonly host?: string;
  readonly port?: number;
  readonly logger: PinoLogger;
  readonly env: NodeJS.ProcessEnv;
}

export interface RunningGateway {
  readonly url: string;
  readonly config: ConfigSource;
  stop(): Promise<void>;
}

/** CLI flags beat the file; applied to every version of the file, including hot reloads. */
function cliOverrides(options: ServeOptions) {
  return (document: unknown): unknown => {
    if (options.host === undefined && options.port === undefined) return document;
    const doc = (document ?? {}) as Record<string, unknown>;
    const server = { ...((doc['server'] as Record<string, unknown> | undefined) ?? {}) };
    if (options.host !== undefined) server['host'] = options.host;
    if (options.port !== undefined) server['port'] = options.port;
    return { ...doc, server };
  };
}

export async function startGateway(options: ServeOptions): Promise<RunningGateway> {
  const logger = options.logger;
  const config = new FileConfigSource({ path: options.configPath, logger, overrides: cliOverrides(options) });
  await config.start();

  const pool = new UpstreamPool({
    secrets: processSecretReader(options.env),
    clientInfo: { name: 'agent-gateway', version: GATEWAY_VERSION },
    logger,
  });
  const cache = new MemoryDiscoveryCache<CachedToolList>();
  const breakers = new BreakerRegistry();
  const catalog = new ToolCatalog({
    pool,
    breakers,
    cache,
    statuses: new SourceStatusRegistry(),
    logger,
    listTtlMs: 30_000,
  });
  const unsubscribe = config.subscribe((snapshot) => {
    cache.invalidate('');
    pool.retain(snapshot.config);
    sync.schedule(snapshot.config);
  });

  const lifecycle: Lifecycle = { ready: false };
  const inflight = new InflightTracker();
  const bridge = new ElicitationBridge();
  const { store, lock } = await openKnowledgeStore(
    config.current().config.knowledge,
    processSecretReader(options.env),
    logger,
  );
  const secrets = processSecretReader(options.env);
  const connectorFactory = (source: DataSourceConfig, workspace: string) =>
    connectorFor(source, {
      secrets,
      mcp: (name) => {
        const mcpSource = config
          .current()
          .config.workspaces.find((w) => w.name === workspace)
          ?.mcpSources.find((s) => s.name === name);
        if (mcpSource === undefined) return Promise.reject(new Error(`no MCP source ${name}`));
        return breakers.run(workspace, mcpSource, () => pool.get(workspace, mcpSource));
      },
    });
  const sync = new SyncEngine(store, lock, logger, connectorFactory);
  const knowledge = new KnowledgeService(store, {
    logger,
    answerer: (answerer) => chatAnswerer(answerer, secrets),
  });
  const app = buildApp({
    config,
    catalog,
    pool,
    breakers,
    bridge,
    knowledge,
    sync,
    logger,
    lifecycle,
    inflight,
  });
  const server = config.current().config.server;
  await app.listen({ host: server.host, port: server.port });
  lifecycle.ready = true;
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : server.port;
  const url = `http://${server.host.includes(':') ? `[${server.host}]` : server.host}:${port}`;
  logger.info({ url, config: config.path, revision: config.current().revision }, 'agent gateway listening');
  warmUp(catalog, config, logger);
  sync.schedule(config.current().config);

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      lifecycle.ready = false;
      const grace = config.current().config.server.shutdownGraceMs;
      const deadline = new Promise<void>((resolve) => setTimeout(resolve, grace).unref());
      // Stop accepting, let requests in flight (streams included) finish, then close what is left.
      const closing = app.close();
      await Promise.race([inflight.drained(), deadline]);
      app.server.closeAllConnections();
      await closing;
      unsubscribe();
      await Promise.race([pool.close(), deadline]);
      breakers.close();
      await bridge.close();
      sync.stop();
      await store.close();
      await config.close();
      logger.info({}, 'agent gateway stopped');
    })();
    return stopping;
  };
  return { url, config, stop };
}

/** Discovers every source once in the background so /agent/sources has a status right away. */
function warmUp(catalog: ToolCatalog, config: ConfigSource, logger: PinoLogger): void {
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
      logger.info(
        { workspace: workspace.name },
        `workspace has no API keys yet; create one with: npx agent-gateway key create --config ${(config as FileConfigSource).path} --workspace ${workspace.name}`,
      );
    }
  }
}
