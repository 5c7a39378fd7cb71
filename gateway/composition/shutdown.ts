// Ordered stop under a hard deadline (STYLE 10): readiness false, notification streams end, the
// connections and requests in flight drain, fastify closes, then the parts: upstream connections
// (cut off by the deadline), shared state, knowledge, reach, config watch, audit. Stopping twice is
// stopping once.
import type { Logger as PinoLogger } from 'pino';
import type { ConfigSource } from '../config/index.js';
import type { ConnectionDrain } from '../edge/connection-drain.js';
import type { Lifecycle } from '../edge/health-routes.js';
import type { InflightTracker } from '../edge/inflight-tracker.js';
import type { TenantReach } from '../reach/index.js';
import type { SubscriptionHub } from '../subscriptions/index.js';
import type { AuditSink } from '../telemetry/audit-sink.js';
import type { KnowledgeParts } from './knowledge-parts.js';
import type { Readiness } from './readiness.js';
import type { SharedState } from './shared-state.js';
import type { UpstreamParts } from './upstream-parts.js';

export interface StoppableParts {
  readonly config: ConfigSource;
  readonly logger: PinoLogger;
  readonly lifecycle: Lifecycle;
  readonly readiness: Readiness;
  readonly inflight: InflightTracker;
  readonly drain: ConnectionDrain;
  readonly app: { close(): PromiseLike<unknown> };
  readonly unsubscribe: () => void;
  readonly subscriptions: SubscriptionHub;
  readonly upstream: UpstreamParts;
  readonly shared: SharedState;
  readonly knowledge: KnowledgeParts;
  readonly reach: TenantReach;
  readonly audit: AuditSink | undefined;
  /** Users' connection store (issue 42). */
  readonly userConnections: { readonly rows: { close(): Promise<void> } };
}

export function orderedStop(parts: StoppableParts): () => Promise<void> {
  const { config, logger, lifecycle, inflight, drain, app, upstream, shared, knowledge } = parts;
  let stopping: Promise<void> | undefined;
  return () => {
    stopping ??= (async () => {
      parts.readiness.cancel();
      lifecycle.ready = false;
      // Notification streams end gracefully first (their clients listen again elsewhere).
      parts.subscriptions.close();
      const { shutdownGraceMs, drainDelayMs } = config.current().config.server;
      const deadline = new Promise<void>((resolve) => setTimeout(resolve, shutdownGraceMs).unref());
      // /readyz answers 503 from here; keep serving (Connection: close) while routers catch up, then
      // stop listening and let requests in flight (streams included) and connections end, by the
      // deadline. Only then does fastify close (its onClose hooks): no connection is left to refuse.
      await drain.run({ drainDelayMs, shutdownGraceMs }, inflight);
      await app.close();
      parts.unsubscribe();
      upstream.catalog.close();
      await Promise.race([upstream.pool.close(), deadline]);
      upstream.breakers.close();
      knowledge.toolSearch.vectors.close();
      await shared.bridge.close();
      await shared.close();
      knowledge.sync.stop();
      await knowledge.store.close();
      await parts.userConnections.rows.close();
      await parts.reach.close();
      await upstream.authorizationServers.close();
      await config.close();
      await parts.audit?.close();
      logger.info({}, 'agent gateway stopped');
    })();
    return stopping;
  };
}
