// buildApp(deps): the HTTP application, never listening by itself (STYLE 4), so tests use
// `inject()` or a real listen on port 0. Wires the inbound deadlines, request ids, the per-request
// config snapshot, the request-target check, the auth gate, the routes and the single error renderer.
import { methodLabel } from './platform/http-method.js';
import { allowedMethods } from './edge/allowed-methods.js';
import { refuseDuplicateHeaders } from './edge/header-policy.js';
import { clientErrorHandler, refuseConnect } from './edge/raw-connection-errors.js';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger as PinoLogger } from 'pino';
import type { ConfigSource } from './config/index.js';
import type { ToolCatalog } from './discovery/index.js';
import { wellFormed } from './platform/well-formed-text.js';
import { limitHook } from './limits/limit-hook.js';
import { MemoryRateLimiter, type RateLimiter } from './limits/rate-limiter.js';
import { ToolLimits } from './limits/tool-limits.js';
import type { SharedStateStatus } from './rest/sources-route.js';
import { GatewayError } from './errors/index.js';
import { authHook } from './edge/auth-hook.js';
import type { OAuthAuthenticator } from './auth/index.js';
import { registerProtectedResourceRoutes } from './edge/protected-resource-route.js';
import { checkRequestTarget } from './edge/request-target.js';
import { guardSilentConnections } from './edge/silent-connection-guard.js';
import type { InflightTracker } from './edge/inflight-tracker.js';
import type { ConnectionDrain } from './edge/connection-drain.js';
import { errorHandler } from './edge/error-handler.js';
import { registerHealthRoutes, type Lifecycle } from './edge/health-routes.js';
import { clientRequestIdOf, requestIdFor } from './edge/request-id.js';
import { recordRoutes } from './edge/route-table.js';
import { registerCachePolicy } from './edge/cache-policy.js';
import './edge/request-context.js';
import { createDispatcher, registerMcpRoute, TaskIdSeal, type ElicitationBridge } from './mcp/index.js';
import { MemoryTaskLedger, type TaskLedger } from './limits/task-ledger.js';
import { ToolSearch } from './tool-search/index.js';
import type { SubscriptionHub } from './subscriptions/index.js';
import { registerSubscriptionRoutes } from './mcp/subscription-routes.js';
import { registerServerSpans } from './telemetry/server-span.js';
import { lazyChildLogger, logsAt } from './telemetry/lazy-child-logger.js';
import { registerAuditHooks } from './edge/audit-hook.js';
import type { AuditSink } from './telemetry/audit-sink.js';
import { annotateRequest } from './telemetry/tracing.js';
import { GuardrailHooks } from './governance/index.js';
import type { KnowledgeService, SyncEngine } from './knowledge/index.js';
import {
  registerConnectionRoutes,
  registerConsentPages,
  registerKnowledgeRoutes,
  registerMcpConfigRoute,
  registerSourcesRoutes,
  registerToolsRoute,
  type ConnectionRouteDeps,
} from './rest/index.js';
import type { BreakerRegistry, UpstreamPool } from './upstream/index.js';
import { count, recordDuration } from './telemetry/metrics.js';
import { loadConsoleAssets, registerConsoleRoutes, type ConsoleAsset } from './console/index.js';
import { ActivityRecorder } from './telemetry/activity-recorder.js';
import { registerActivityRoute } from './rest/activity-route.js';
import { registerUsageRoute } from './rest/usage-route.js';
import { routeOf } from './platform/matched-route.js';

export interface AppDeps {
  readonly config: ConfigSource;
  readonly catalog: ToolCatalog;
  readonly pool: UpstreamPool;
  readonly breakers: BreakerRegistry;
  readonly bridge: ElicitationBridge;
  /** Seals task ids (issue 43); a random key of this replica when absent. */
  readonly taskSeal?: TaskIdSeal;
  /** The keys' task places and held results (issue 43); this replica's own when absent. */
  readonly taskLedger?: TaskLedger;
  readonly knowledge: KnowledgeService;
  readonly sync: SyncEngine;
  readonly logger: PinoLogger;
  readonly lifecycle: Lifecycle;
  readonly now?: () => Date;
  readonly inflight?: InflightTracker;
  /** The shutdown drain (Connection: close, the cutoff of calls still running at the deadline). */
  readonly drain?: ConnectionDrain;
  /** Rates and quotas (issue 10); the memory twin when absent. */
  readonly limiter?: RateLimiter;
  /** What /agent/sources reports as `shared_state`. */
  readonly sharedState?: () => SharedStateStatus;
  /** Tool search (issue 23); ranks by words only when absent. */
  readonly toolSearch?: ToolSearch;
  /** Notification streams (issue 24): subscriptions/listen and the legacy GET stream. */
  readonly subscriptions?: SubscriptionHub;
  /** OAuth access tokens (issue 29), checked when the config has an `oauth` section. */
  readonly oauth?: OAuthAuthenticator;
  /** The audit trail (issue 29): one record per request to a protected route; none when absent. */
  readonly audit?: AuditSink;
  /** The console's files (issue 25); read from dist/console when `server.console.enabled` and absent. */
  readonly consoleAssets?: ReadonlyMap<string, ConsoleAsset>;
  /** The workspace activity behind GET /agent/activity (issue 25); a fresh one when absent. */
  readonly activity?: ActivityRecorder;
  /** Guardrail hooks (issue 41): none can sign (every hook fails by its policy) when absent. */
  readonly guardrails?: GuardrailHooks;
  /** Users' connections to `user` sources (issue 42): their routes, pages and the consent step. */
  readonly connections?: ConnectionRouteDeps;
}

export function buildApp(deps: AppDeps): FastifyInstance {
  const server = deps.config.current().config.server;
  const logger: FastifyBaseLogger = deps.logger;
  const { headersMs, requestMs, keepAliveMs } = server.timeouts;
  const app: FastifyInstance = Fastify({
    loggerInstance: logger,
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: requestIdFor,
    childLoggerFactory: lazyChildLogger,
    bodyLimit: server.bodyLimitBytes,
    return503OnClosing: true,
    // What Node's parser refuses is answered in the documented error body (issue 28.2).
    clientErrorHandler,
    // Inbound deadlines (issue 8.4); Node checks them every `connectionsCheckingInterval`.
    requestTimeout: requestMs,
    keepAliveTimeout: keepAliveMs,
    http: {
      headersTimeout: headersMs,
      requestTimeout: requestMs,
      keepAliveTimeout: keepAliveMs,
      connectionsCheckingInterval: Math.min(1000, headersMs),
    },
  });
  recordRoutes(app);
  guardSilentConnections(app.server, headersMs);
  refuseConnect(app.server);
  app.removeContentTypeParser('text/plain');
  app.decorateRequest('snapshot', null as never);
  app.decorateRequest('principal', undefined);
  app.decorateRequest('rpcId', null);
  app.decorateRequest('errorClass', undefined);
  app.decorateRequest('errorCode', undefined);
  app.decorateRequest('matchedRoute', null);

  // First, so every later hook and the handler run inside the request's span.
  registerServerSpans(app);
  registerAuditHooks(app, deps.audit);
  deps.inflight?.attach(app);
  deps.drain?.attach(app.server);
  // Hooks that never wait take `done` rather than returning a promise: each promise hook costs the
  // relay path a microtask turn and its allocations per request (issue 45).
  app.addHook('onRequest', (request, reply, done) => {
    request.snapshot = deps.config.current();
    void reply.header('x-request-id', request.id);
    done();
  });
  registerCachePolicy(app);
  app.addHook('onRequest', refuseDuplicateHeaders);
  app.addHook('onRequest', checkRequestTarget);
  app.addHook('onRequest', authHook(deps.now ?? (() => new Date()), deps.oauth));
  // The request's span (when tracing is on) gets who asked: workspace and key id,
  // never the key. Set once the key is known, before limits
  // and handlers run, so refusals and child spans are under a described parent.
  app.addHook('onRequest', (request, _reply, done) => {
    annotateRequest({
      'agw.workspace': request.principal?.workspace.name,
      'agw.key.id': request.principal?.keyId,
    });
    done();
  });
  const limiter = deps.limiter ?? new MemoryRateLimiter();
  const limitPrefix = () => deps.config.current().config.sharedState.redis?.keyPrefix ?? 'agw:';
  app.addHook('preHandler', limitHook(limiter, limitPrefix));
  // Activity routes are the app's own routes (a closed set); workspaces those of the config.
  const activity = deps.activity ?? new ActivityRecorder();
  app.addHook('onRoute', (route) => activity.addRoute(route.url));
  let activityRevision = -1;
  // REST input is made well-formed before validation (/mcp bodies are relayed as sent).
  app.addHook('preValidation', (request, _reply, done) => {
    if (routeOf(request).url?.startsWith('/agent/') === true) {
      request.body = wellFormed(request.body);
      request.query = wellFormed(request.query);
    }
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    const labels = {
      'http.route': routeOf(request).url ?? 'unmatched',
      'http.request.method': methodLabel(request.method),
      'http.response.status_code': reply.statusCode,
      ...(request.errorClass === undefined ? {} : { 'error.type': request.errorClass }),
    };
    count('agw.requests', labels);
    recordDuration('agw.request.duration', reply.elapsedTime / 1000, labels);
    const principal = request.principal;
    if (principal !== undefined) {
      if (request.snapshot.revision > activityRevision) {
        activityRevision = request.snapshot.revision;
        activity.retain(new Set(request.snapshot.config.workspaces.map((w) => w.name)));
      }
      activity.record(principal.workspace.name, routeOf(request).url, request.errorClass, reply.elapsedTime);
    }
    if (logsAt(request.log, 'info'))
      request.log.info(
        {
          method: request.method,
          route: routeOf(request).url ?? 'unmatched',
          status: reply.statusCode,
          // The caller's own id beside the gateway's reqId, only when it is a short token.
          clientRequestId: clientRequestIdOf(request.raw),
          ...(request.errorClass === undefined ? {} : { errorClass: request.errorClass }),
          ...(request.errorCode === undefined ? {} : { errorCode: request.errorCode }),
          ms: Math.round(reply.elapsedTime),
          workspace: request.principal?.workspace.name,
          // Not `key`: the logger redacts that path, and the fingerprint is what `key list` shows.
          keyFingerprint: request.principal?.keyFingerprint,
        },
        'request completed',
      );
    done();
  });

  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(async (request) => {
    await Promise.resolve();
    // A path served with other methods answers 405 with Allow, not 404 (issue 28.2).
    const allow = allowedMethods(app, request);
    if (allow.length > 0)
      throw new GatewayError('method_not_allowed', undefined, { headers: { allow: allow.join(', ') } });
    throw new GatewayError('not_found');
  });

  registerHealthRoutes(app, deps.lifecycle);
  registerProtectedResourceRoutes(app);
  registerSourcesRoutes(app, deps.catalog, deps.sync, deps.sharedState ?? (() => 'local'));
  registerKnowledgeRoutes(app, deps.knowledge);
  const toolSearch = deps.toolSearch ?? new ToolSearch(undefined);
  registerToolsRoute(app, deps.catalog, toolSearch);
  registerMcpConfigRoute(app);
  registerUsageRoute(app, limiter, limitPrefix);
  registerActivityRoute(app, activity, deps.sync);
  if (deps.connections !== undefined) {
    registerConnectionRoutes(app, deps.connections);
    registerConsentPages(app, {
      ...deps.connections,
      consoleEnabled: server.console.enabled,
      hasIdentity: (workspace) =>
        deps.config.current().config.workspaces.some((w) => w.name === workspace && w.identity !== undefined),
    });
  }
  // The console exists only when enabled: otherwise /console is any unknown route (authenticated, 404).
  if (server.console.enabled) registerConsoleRoutes(app, deps.consoleAssets ?? loadConsoleAssets());
  // One task seal and ledger for the task methods and the task notifications of listen streams.
  const taskSeal = deps.taskSeal ?? new TaskIdSeal();
  const taskLedger = deps.taskLedger ?? new MemoryTaskLedger();
  if (deps.subscriptions !== undefined)
    registerSubscriptionRoutes(
      app,
      deps.subscriptions,
      { pool: deps.pool, breakers: deps.breakers, lists: deps.catalog.lists },
      {
        pool: deps.pool,
        breakers: deps.breakers,
        taskSeal,
        ledger: taskLedger,
        guardrails: deps.guardrails ?? new GuardrailHooks(),
      },
    );
  registerMcpRoute(
    app,
    createDispatcher({
      catalog: deps.catalog,
      pool: deps.pool,
      breakers: deps.breakers,
      bridge: deps.bridge,
      taskSeal,
      ledger: taskLedger,
      taskLimits: () => deps.config.current().config.server.tasks,
      knowledge: deps.knowledge,
      toolSearch,
      toolLimits: new ToolLimits(limiter, limitPrefix),
      ...(deps.guardrails === undefined ? {} : { guardrails: deps.guardrails }),
      connections: deps.connections?.connections,
      ...(deps.subscriptions === undefined ? {} : { subscriptions: deps.subscriptions }),
    }),
    deps.drain?.cutoff,
    (answer) => deps.bridge.streamed.answer(answer),
  );
  return app;
}
