// The gateway's HTTP server (the `server` section): where it listens, what it accepts (body size,
// origins, hosts, inbound deadlines), how it shuts down, and the bounds on multi-round flows,
// notification streams and tasks, and the console it serves.
import { z } from 'zod';

/** Inbound HTTP deadlines (issue 8.4): a client must finish sending its headers within `headersMs`
 * and its whole request (headers and body) within `requestMs`; an idle keep-alive connection is
 * closed after `keepAliveMs`. Responses are not limited here: a tool call may run up to its source's
 * `timeouts.callMs`. */
const InboundTimeoutsSchema = z
  .strictObject({
    headersMs: z.number().int().min(1000).max(120_000).default(10_000),
    requestMs: z.number().int().min(1000).max(600_000).default(30_000),
    keepAliveMs: z.number().int().min(100).max(600_000).default(5_000),
  })
  .refine((timeouts) => timeouts.headersMs <= timeouts.requestMs, {
    path: ['headersMs'],
    message: 'must not exceed requestMs',
  });
export const INBOUND_TIMEOUT_DEFAULTS = { headersMs: 10_000, requestMs: 30_000, keepAliveMs: 5_000 };

export const MULTI_ROUND_DEFAULTS = {
  maxPendingPerKey: 16,
  maxPendingPerWorkspace: 256,
  idleTimeoutMs: 60_000,
  legacyCallerSessionsPerSource: 4,
};
const MultiRoundSchema = z
  .strictObject({
    maxPendingPerKey: z
      .number()
      .int()
      .min(1)
      .max(10_000)
      .default(16)
      .describe('Bridged calls one key may have waiting for its answer; more are refused as rate_limited.'),
    maxPendingPerWorkspace: z
      .number()
      .int()
      .min(1)
      .max(100_000)
      .default(256)
      .describe('Bridged calls one workspace may have waiting, across its keys.'),
    idleTimeoutMs: z
      .number()
      .int()
      .min(1000)
      .max(3_600_000)
      .default(60_000)
      .describe('How long a bridged call waits for the client to answer before it is declined and released.'),
    legacyCallerSessionsPerSource: z
      .number()
      .int()
      .min(0)
      .max(1000)
      .default(4)
      .describe(
        "2025-era callers' tool calls to a 2025-era upstream that may run at once on dedicated upstream sessions declaring elicitation and sampling, per workspace source and replica; further concurrent calls use the source's shared session, where the upstream hears that the client cannot answer questions. 0: never.",
      ),
  })
  .describe('Bounds on pending multi-round flows (bridged elicitation and sampling).');

export const TASK_DEFAULTS = {
  maxPerKey: 100,
  heldResultMaxBytes: 1024 * 1024,
  heldTtlMs: 600_000,
};
/** Bounds on MCP tasks relayed through the gateway (issue 43): places per key, and complete results
 * the gateway holds as finished tasks for 2025-era clients that asked for a task. */
const TasksSchema = z
  .strictObject({
    maxPerKey: z
      .number()
      .int()
      .min(1)
      .max(100_000)
      .default(100)
      .describe(
        'Tasks one key may hold at once (running upstream tasks and held results, until they end or expire, across replicas); a call asking for one more is refused.',
      ),
    heldResultMaxBytes: z
      .number()
      .int()
      .min(1024)
      .max(16 * 1024 * 1024)
      .default(1024 * 1024)
      .describe(
        'Largest complete result (serialized JSON, bytes) the gateway holds as a finished task for a client that asked for a task; a larger one is not held and the call is refused.',
      ),
    heldTtlMs: z
      .number()
      .int()
      .min(1000)
      .max(86_400_000)
      .default(600_000)
      .describe('How long a held result is kept for the client to fetch; its place is taken until then.'),
  })
  .describe('Bounds on MCP tasks: places per key and complete results held as finished tasks.');

export const SUBSCRIPTION_DEFAULTS = {
  maxStreamsPerKey: 4,
  maxStreamsPerWorkspace: 64,
  maxUrisPerStream: 32,
  idleTimeoutMs: 300_000,
  maxLifetimeMs: 3_600_000,
  keepAliveMs: 15_000,
  maxQueuedNotifications: 256,
};
/** Bounds on notification streams (issue 24, D23): `subscriptions/listen` and the legacy GET stream. */
const SubscriptionsSchema = z
  .strictObject({
    maxStreamsPerKey: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .default(4)
      .describe('Notification streams one key may hold open at once; more are refused as rate_limited.'),
    maxStreamsPerWorkspace: z
      .number()
      .int()
      .min(1)
      .max(100_000)
      .default(64)
      .describe('Notification streams one workspace may hold open at once, across its keys.'),
    maxUrisPerStream: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .default(32)
      .describe('Resource URIs one listen stream (or one key on the legacy face) may subscribe to.'),
    idleTimeoutMs: z
      .number()
      .int()
      .min(1000)
      .max(86_400_000)
      .default(300_000)
      .describe('A stream that delivered no notification for this long is ended gracefully.'),
    maxLifetimeMs: z
      .number()
      .int()
      .min(1000)
      .max(86_400_000)
      .default(3_600_000)
      .describe('Every stream is ended gracefully after this long; the client listens again.'),
    keepAliveMs: z
      .number()
      .int()
      .min(1000)
      .max(300_000)
      .default(15_000)
      .describe('Interval of the `:` keep-alive comments on an open stream.'),
    maxQueuedNotifications: z
      .number()
      .int()
      .min(1)
      .max(100_000)
      .default(256)
      .describe('Notifications a stream may have waiting for a slow client; past this it is dropped.'),
  })
  .describe('Bounds on notification streams (subscriptions/listen and the legacy GET /mcp stream).');

/** The workspace console (issue 25, docs/console.md): static pages at /console, off by default. */
const ConsoleSchema = z
  .strictObject({
    enabled: z
      .boolean()
      .default(false)
      .describe(
        'Serve the workspace console at /console (sign in with an API key; no key needed to load the page).',
      ),
  })
  .describe('The browser console for the owners of API keys (docs/console.md).');

const ServerFieldsSchema = z.strictObject({
  host: z.string().min(1).default('127.0.0.1'),
  port: z.number().int().min(0).max(65_535).default(8080),
  /** The URL clients use to reach this gateway; used in generated client configs. */
  publicUrl: z.url({ protocol: /^https?$/ }).optional(),
  bodyLimitBytes: z
    .number()
    .int()
    .min(1024)
    .max(64 * 1024 * 1024)
    .default(1024 * 1024),
  /** Browser origins allowed to call the gateway; requests with any other Origin are refused. */
  allowedOrigins: z.array(z.string().min(1)).default([]),
  /** Host header values accepted (DNS-rebinding protection); empty: any Host, or only loopback Hosts
   * when the gateway listens on loopback. */
  allowedHosts: z.array(z.string().min(1)).default([]),
  /** How long a shutdown (SIGTERM) may take in all: the drain below, then requests in flight. */
  shutdownGraceMs: z.number().int().min(0).max(120_000).default(10_000),
  /** After SIGTERM, how long the gateway keeps accepting and serving (readiness already 503, every
   * response `Connection: close`) while routers stop sending to it (issue 21). 0 stops listening at
   * once: right for a gateway nothing routes to; behind a Service or load balancer, a few seconds. */
  drainDelayMs: z.number().int().min(0).max(60_000).default(0),
  /** Bounds on pending multi-round flows (issue 28.1): a legacy upstream's elicitation or sampling
   * bridged into input_required holds an upstream connection until the client answers. */
  multiRound: MultiRoundSchema.default(MULTI_ROUND_DEFAULTS),
  subscriptions: SubscriptionsSchema.default(SUBSCRIPTION_DEFAULTS),
  /** Bounds on MCP tasks (issue 43): places per key, results held as finished tasks. */
  tasks: TasksSchema.default(TASK_DEFAULTS),
  timeouts: InboundTimeoutsSchema.default(INBOUND_TIMEOUT_DEFAULTS),
  console: ConsoleSchema.default({ enabled: false }),
});

export const ServerSchema = ServerFieldsSchema.superRefine((server, ctx) => {
  // The drain must leave time for the requests it let in to finish within the grace.
  if (server.drainDelayMs > 0 && server.drainDelayMs >= server.shutdownGraceMs)
    ctx.addIssue({
      code: 'custom',
      path: ['drainDelayMs'],
      message: `must be less than server.shutdownGraceMs (${server.shutdownGraceMs}), which bounds the whole shutdown`,
    });
});
