// The composition root (STYLE 4): loads config, builds every part once (each in
// gateway/composition/), builds the app, listens, becomes ready, and shuts down in order —
// readiness false, drain connections and in-flight requests (edge/connection-drain.ts), close
// upstream connections, stop watching config — under a hard deadline (composition/shutdown.ts).
import { buildApp } from './app.js';
import type { ConfigSource } from './config/index.js';
import { openAuditSink, openOAuth } from './composition/caller-identity.js';
import { chooseConfig } from './composition/config-choice.js';
import { followConfig } from './composition/config-follow.js';
import { observeGatewayGauges } from './composition/gauges.js';
import { openKnowledge } from './composition/knowledge-parts.js';
import { openSharedState } from './composition/open-shared-state.js';
import { readyWhenSynced } from './composition/readiness.js';
import type { ServeOptions } from './composition/serve-options.js';
import { orderedStop } from './composition/shutdown.js';
import { openTenantReach } from './composition/tenant-reach.js';
import { reportPins } from './composition/pin-reports.js';
import { buildUpstream } from './composition/upstream-parts.js';
import { openUserConnections, userSourceTargets } from './composition/user-connections.js';
import { ConnectionDrain } from './edge/connection-drain.js';
import type { Lifecycle } from './edge/health-routes.js';
import { InflightTracker } from './edge/inflight-tracker.js';
import { routesOf, type RouteEntry } from './edge/route-table.js';
import { GuardrailHooks } from './governance/index.js';
import { SubscriptionHub } from './subscriptions/index.js';

export type { ServeOptions } from './composition/serve-options.js';

export interface RunningGateway {
  readonly url: string;
  readonly config: ConfigSource;
  /** Every route the app serves (method and URL pattern), as fastify registered them. */
  readonly routes: readonly RouteEntry[];
  stop(): Promise<void>;
}

export async function startGateway(options: ServeOptions): Promise<RunningGateway> {
  const logger = options.logger;
  // 1. The config, and what may be reached on a tenant's behalf.
  const { config, secrets, synced, describe, keyHint, apiServer } = await chooseConfig(options);
  const reach = await openTenantReach(config, options.kubernetes !== undefined, apiServer, logger);

  // 2. The parts: shared state, the upstream side, knowledge; their gauges; config hot reload.
  const shared = await openSharedState(
    config.current().config.sharedState,
    secrets,
    logger,
    () => config.current().config.server.multiRound,
  );
  const userConnections = await openUserConnections({ config, secrets, logger });
  const upstream = buildUpstream({
    config,
    secrets,
    logger,
    reach,
    sessions: shared.sessions,
    cache: shared.discovery,
    connections: userConnections.connections,
  });
  const knowledge = await openKnowledge({ config, secrets, logger, reach, upstream });
  observeGatewayGauges({ config, ...upstream, sync: knowledge.sync, sharedState: shared.status });
  const unfollow = followConfig({ config, cache: shared.discovery, ...upstream, ...knowledge });
  const stopReports =
    options.pinReports === undefined
      ? () => undefined
      : reportPins({ config, catalog: upstream.catalog, logger }, options.pinReports);
  const unsubscribe = () => {
    unfollow();
    stopReports();
  };
  const subscriptions = new SubscriptionHub({ bus: shared.changes, pool: upstream.pool, config, logger });
  const audit = openAuditSink(config.current().config);
  const oauth = openOAuth(secrets, reach, upstream.authorizationServers);

  // 3. The app, listening; ready once the config is complete.
  const lifecycle: Lifecycle = { ready: false };
  const inflight = new InflightTracker();
  const drain = new ConnectionDrain();
  const app = buildApp({
    oauth,
    subscriptions,
    limiter: shared.limiter,
    sharedState: shared.status,
    config,
    catalog: upstream.catalog,
    pool: upstream.pool,
    breakers: upstream.breakers,
    bridge: shared.bridge,
    taskSeal: shared.taskSeal,
    taskLedger: shared.taskLedger,
    knowledge: knowledge.knowledge,
    sync: knowledge.sync,
    logger,
    lifecycle,
    inflight,
    drain,
    toolSearch: knowledge.toolSearch,
    guardrails: new GuardrailHooks({ secrets, reach, logger }),
    connections: {
      connections: userConnections.connections,
      target: userSourceTargets(config, reach, upstream.authorizationServers),
    },
    ...(audit === undefined ? {} : { audit }),
  });
  const server = config.current().config.server;
  await app.listen({ host: server.host, port: server.port });
  const readiness = readyWhenSynced(synced, {
    lifecycle,
    config,
    ...upstream,
    ...knowledge,
    logger,
    keyHint,
  });
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : server.port;
  const url = `http://${server.host.includes(':') ? `[${server.host}]` : server.host}:${port}`;
  logger.info({ url, config: describe, revision: config.current().revision }, 'agent gateway listening');

  // 4. The stop, in order under a deadline.
  const stop = orderedStop({
    config,
    logger,
    lifecycle,
    readiness,
    inflight,
    drain,
    app,
    unsubscribe,
    subscriptions,
    upstream,
    shared,
    knowledge,
    reach,
    audit,
    userConnections,
  });
  return { url, config, routes: routesOf(app), stop };
}
