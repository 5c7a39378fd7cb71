// The composition root (STYLE 4): loads config, builds every dependency once, builds the app,
// listens, and shuts down in order — readiness false, drain connections and in-flight requests
// (platform/connection-drain.ts), close upstream connections, stop watching config — under a hard
// deadline.
import type { Logger as PinoLogger } from 'pino';
import { ToolIndexer, ToolSearch } from './tool-search/index.js';
import { buildApp } from './app.js';
import { routesOf, type RouteEntry } from './platform/route-table.js';
import { readFile } from 'node:fs/promises';
import { parseDocument } from 'yaml';
import {
  configDigest,
  DEFAULT_TENANT_POLICY,
  FileConfigSource,
  processSecretReader,
  type ConfigSource,
  type DataSourceConfig,
  type GatewayConfig,
  type SecretReader,
} from './config/index.js';
import { loadTokenizer } from './rest/usage-header.js';
import { openSharedState } from './composition/open-shared-state.js';
import { SourceStatusRegistry, ToolCatalog } from './discovery/index.js';
import {
  chatAnswerer,
  connectorFor,
  embeddingProviderFor,
  KnowledgeService,
  SyncEngine,
  WorkspaceEmbeddings,
} from './knowledge/index.js';
import { openKnowledgeStore } from './knowledge/open-store.js';
import type { Lifecycle } from './platform/health-routes.js';
import { InflightTracker } from './platform/inflight-tracker.js';
import { ConnectionDrain } from './platform/connection-drain.js';
import { BreakerRegistry, UpstreamPool, UpstreamTokens } from './upstream/index.js';
import { GATEWAY_VERSION } from './version.js';
import {
  AuthorizationServerPool,
  ReachPolicy,
  TenantReach,
  discoverOwnAddresses,
  effectivePolicy,
} from './reach/index.js';
import { observeGauge } from './telemetry/metrics.js';
import { createAuditSink } from './telemetry/audit-sink.js';
import { expandOAuthEnv } from './config/env-expansion.js';
import { OAuthAuthenticator } from './auth/index.js';
import { SubscriptionHub } from './subscriptions/index.js';

export interface ServeOptions {
  /** The config file; with `kubernetes`, optional and holding only server and knowledge settings. */
  readonly configPath?: string;
  /** Read workspaces from the operator's rendered objects in this namespace (serve --kubernetes). */
  readonly kubernetes?: { readonly namespace: string; readonly kubeconfigPath?: string };
  readonly host?: string;
  readonly port?: number;
  readonly logger: PinoLogger;
  readonly env: NodeJS.ProcessEnv;
}

export interface RunningGateway {
  readonly url: string;
  readonly config: ConfigSource;
  /** Every route the app serves (method and URL pattern), as fastify registered them. */
  readonly routes: readonly RouteEntry[];
  stop(): Promise<void>;
}

/** CLI flags beat the file; applied to every version of the file, including hot reloads, after
 * the `${NAME}` references of the OAuth URLs are expanded from the environment. */
function cliOverrides(options: ServeOptions) {
  return (raw: unknown): unknown => {
    const document = expandOAuthEnv(raw, options.env);
    if (options.host === undefined && options.port === undefined) return document;
    const doc = (document ?? {}) as Record<string, unknown>;
    const server = { ...((doc['server'] as Record<string, unknown> | undefined) ?? {}) };
    if (options.host !== undefined) server['host'] = options.host;
    if (options.port !== undefined) server['port'] = options.port;
    return { ...doc, server };
  };
}

interface ConfigChoice {
  readonly config: ConfigSource;
  readonly secrets: SecretReader;
  /** Resolves when the gateway has its first complete config and may report ready; undefined when
   * it already has (the file shape). */
  readonly synced: Promise<void> | undefined;
  readonly describe: string;
  readonly keyHint: (workspace: string) => string;
  /** The Kubernetes API server this gateway talks to (kept out of tenants' reach), if any. */
  readonly apiServer?: string;
}

async function chooseConfig(options: ServeOptions): Promise<ConfigChoice> {
  const env = processSecretReader(options.env);
  if (options.kubernetes === undefined) {
    if (options.configPath === undefined) throw new Error('a config file is required without --kubernetes');
    const path = options.configPath;
    const config = new FileConfigSource({ path, logger: options.logger, overrides: cliOverrides(options) });
    await config.start();
    return {
      config,
      secrets: env,
      synced: undefined,
      describe: config.path,
      keyHint: (workspace) =>
        `workspace has no API keys yet; create one with: npx agent-gateway key create --config ${config.path} --workspace ${workspace}`,
    };
  }
  const { namespace, kubeconfigPath } = options.kubernetes;
  const baseText =
    options.configPath === undefined ? '{version: 1}' : await readFile(options.configPath, 'utf8');
  const base = cliOverrides(options)(parseDocument(baseText, { uniqueKeys: true }).toJS() as unknown);
  // The Kubernetes config source loads only here, in serve --kubernetes; it is our own small
  // client, not @kubernetes/client-node (issue 26).
  const { KubeConfigSource, InformerObjectFeed, loadKubeClientConfig } =
    await import('./config/kube/index.js');
  const kubeConfig = loadKubeClientConfig({
    ...(kubeconfigPath === undefined ? {} : { kubeconfigPath }),
    env: options.env,
  });
  const config = new KubeConfigSource({
    feed: new InformerObjectFeed({
      kubeConfig,
      namespace,
      logger: options.logger,
    }),
    base,
    logger: options.logger,
    origin: `kubernetes namespace ${namespace}`,
  });
  await config.start();
  return {
    config,
    secrets: config.secretReader(env),
    synced: config.synced(),
    describe: `kubernetes:${namespace}`,
    apiServer: kubeConfig.server,
    keyHint: (workspace) =>
      `workspace has no API keys yet; create an ApiKey resource with workspaceRef ${workspace}`,
  };
}

/** The usage-hint tokenizer loads only once a config turns usage hints on (issue 26). */
function preloadTokenizer(config: GatewayConfig): void {
  if (config.knowledge.usageHints) void loadTokenizer();
}

/** The tenant reach policy in force (D19): the config's `policy`; with --kubernetes the defaults
 * when it has none; nothing bounded in the embedded file without one. Read once at start. */
async function openTenantReach(
  config: ConfigSource,
  kubernetes: boolean,
  apiServer: string | undefined,
  logger: PinoLogger,
): Promise<TenantReach> {
  const configured = config.current().config.policy;
  const policy = effectivePolicy(configured, kubernetes, DEFAULT_TENANT_POLICY);
  if (policy === undefined) return new TenantReach(undefined);
  const own = await discoverOwnAddresses(apiServer);
  logger.info(
    {
      policy: configured === undefined ? 'default' : 'configured',
      fileRoots: policy.files.allowedRoots.length,
      denyCidrs: policy.network.denyCidrs.length,
      defaultAction: policy.network.defaultAction,
      stdio: policy.stdio,
    },
    'tenant reach policy in force',
  );
  const started = JSON.stringify(configured ?? null);
  config.subscribe((snapshot) => {
    if (JSON.stringify(snapshot.config.policy ?? null) !== started)
      logger.warn(
        {},
        'the tenant reach policy changed in the config; it takes effect when the gateway restarts',
      );
  });
  return new TenantReach(new ReachPolicy(policy, own));
}

/** The workspace's name and namespace as the config has them now. */
function workspaceScope(config: ConfigSource, workspace: string): { name: string; namespace?: string } {
  const found = config.current().config.workspaces.find((w) => w.name === workspace);
  return found?.namespace === undefined
    ? { name: workspace }
    : { name: workspace, namespace: found.namespace };
}

function reachOf(reach: TenantReach, workspace: { name: string; namespace?: string }) {
  const network = reach.guard(workspace);
  const files = reach.fileBounds(workspace);
  return { ...(network === undefined ? {} : { network }), ...(files === undefined ? {} : { files }) };
}

export async function startGateway(options: ServeOptions): Promise<RunningGateway> {
  const logger = options.logger;
  const { config, secrets, synced, describe, keyHint, apiServer } = await chooseConfig(options);
  const reach = await openTenantReach(config, options.kubernetes !== undefined, apiServer, logger);

  const shared = await openSharedState(
    config.current().config.sharedState,
    secrets,
    logger,
    () => config.current().config.server.multiRound,
  );
  // Upstream OAuth tokens, per replica and in memory only (issue 29; docs/security.md).
  // Connections to authorization servers: pools of their own with idle and stall bounds (security.md).
  const authorizationServers = new AuthorizationServerPool();
  const upstreamTokens = new UpstreamTokens({ secrets, authorizationServers });
  const pool = new UpstreamPool({
    secrets,
    tokens: upstreamTokens,
    clientInfo: { name: 'agent-gateway', version: GATEWAY_VERSION },
    logger,
    sessions: shared.sessions,
    network: (workspace) => reach.guard(workspaceScope(config, workspace)),
  });
  const cache = shared.discovery;
  const breakers = new BreakerRegistry();
  const catalog = new ToolCatalog({
    pool,
    breakers,
    cache,
    statuses: new SourceStatusRegistry(),
    logger,
    listTtlMs: 30_000,
  });
  const breakerLevel = { closed: 0, 'half-open': 1, open: 2 } as const;
  observeGauge('agw.breaker.state', 'Circuit breaker per source: 0 closed, 1 half-open, 2 open.', () =>
    breakers.states().map(({ workspace, source, state }) => ({
      value: breakerLevel[state],
      attributes: { 'agw.workspace': workspace, 'agw.source': source },
    })),
  );
  // Per configured MCP source: 1 while this replica knows it as failing (left out, probed), else 0.
  observeGauge(
    'agw.source.failing',
    'MCP source failing and probed in the background (1) or not (0).',
    () => {
      const failing = new Set(
        catalog.failingSources().map(({ workspace, source }) => `${workspace}/${source}`),
      );
      return config.current().config.workspaces.flatMap((workspace) =>
        workspace.mcpSources.map((source) => ({
          value: failing.has(`${workspace.name}/${source.name}`) ? 1 : 0,
          attributes: { 'agw.workspace': workspace.name, 'agw.source': source.name },
        })),
      );
    },
  );
  observeGauge('agw.knowledge.documents', 'Documents in the knowledge index per data source.', () =>
    sync.documentCounts().map(({ workspace, source, documents }) => ({
      value: documents,
      attributes: { 'agw.workspace': workspace, 'agw.source': source },
    })),
  );
  observeGauge('agw.config.revision', 'Revision of the config in use (increments on every reload).', () => [
    { value: config.current().revision },
  ]);
  observeGauge(
    'agw.config.digest',
    'Digest of the config in use: equal on replicas serving the same config.',
    () => [{ value: configDigest(config.current()) }],
  );
  // Only with Redis configured: 1 while it is usable, 0 while this replica serves from local state.
  observeGauge('agw.shared_state.up', 'Shared state in Redis usable (1) or not (0, local state).', () => {
    const status = shared.status();
    return status === 'local' ? [] : [{ value: status === 'redis' ? 1 : 0 }];
  });

  const lifecycle: Lifecycle = { ready: false };
  const inflight = new InflightTracker();
  const drain = new ConnectionDrain();
  const bridge = shared.bridge;
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
  // Subscribed only now that everything it touches exists: a change can land while the knowledge
  // store connects (PostgreSQL, seconds), and the one that did before reached a sync engine not yet
  // made. What changed meanwhile is caught up on here; the sync runs once the gateway is ready.
  const unsubscribe = config.subscribe((snapshot) => {
    cache.dropLocal();
    pool.retain(snapshot.config);
    catalog.retain(snapshot.config);
    sync.schedule(snapshot.config);
    toolIndexer.configure();
    preloadTokenizer(snapshot.config);
  });
  cache.dropLocal();
  pool.retain(config.current().config);
  preloadTokenizer(config.current().config);
  const knowledge = new KnowledgeService(store, {
    logger,
    answerer: (answerer) => chatAnswerer(answerer, secrets),
    embeddings,
  });
  const subscriptions = new SubscriptionHub({ bus: shared.changes, pool, config, logger });
  // The audit trail's sink is chosen once, at start (docs/audit.md).
  const auditSettings = config.current().config.telemetry.audit;
  const audit = auditSettings.enabled ? createAuditSink(auditSettings) : undefined;
  // Authorization servers are reached through the trusting workspace's reach policy (D19).
  const oauth = new OAuthAuthenticator({
    secrets,
    fetchFor: (workspace) => {
      const guard = reach.guard(workspace);
      return {
        key: guard === undefined ? '' : `${guard.scope.namespace}/${guard.scope.workspace}`,
        fetch: authorizationServers.fetchFor(guard),
      };
    },
  });
  const app = buildApp({
    oauth,
    subscriptions,
    limiter: shared.limiter,
    sharedState: shared.status,
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
    drain,
    toolSearch,
    ...(audit === undefined ? {} : { audit }),
  });
  const server = config.current().config.server;
  await app.listen({ host: server.host, port: server.port });
  let stopped = false;
  const becomeReady = () => {
    if (stopped) return;
    lifecycle.ready = true;
    toolIndexer.follow();
    warmUp(catalog, config, logger, keyHint);
    sync.schedule(config.current().config);
  };
  // Ready only once the config is complete (the Kubernetes shape lists the API first, D10).
  if (synced === undefined) becomeReady();
  else void synced.then(becomeReady);
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : server.port;
  const url = `http://${server.host.includes(':') ? `[${server.host}]` : server.host}:${port}`;
  logger.info({ url, config: describe, revision: config.current().revision }, 'agent gateway listening');

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      stopped = true;
      lifecycle.ready = false;
      // Notification streams end gracefully first (their clients listen again elsewhere).
      subscriptions.close();
      const { shutdownGraceMs, drainDelayMs } = config.current().config.server;
      const deadline = new Promise<void>((resolve) => setTimeout(resolve, shutdownGraceMs).unref());
      // /readyz answers 503 from here; keep serving (Connection: close) while routers catch up, then
      // stop listening and let requests in flight (streams included) and connections end, by the
      // deadline. Only then does fastify close (its onClose hooks): no connection is left to refuse.
      await drain.run({ drainDelayMs, shutdownGraceMs }, inflight);
      await app.close();
      unsubscribe();
      catalog.close();
      await Promise.race([pool.close(), deadline]);
      breakers.close();
      toolSearch.vectors.close();
      await bridge.close();
      await shared.close();
      sync.stop();
      await store.close();
      await reach.close();
      await authorizationServers.close();
      await config.close();
      await audit?.close();
      logger.info({}, 'agent gateway stopped');
    })();
    return stopping;
  };
  return { url, config, routes: routesOf(app), stop };
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
