// The gateway config contract (DESIGN §5, D10): one strict zod schema shared by the embedded YAML
// file and the operator's output. Parsed once, strictly; defaults sit next to their fields.
import { z } from 'zod';
import { TELEMETRY_DEFAULTS, TelemetrySchema } from './telemetry-schema.js';
import { SecretRefSchema } from './secret-ref.js';
import { TenantPolicySchema } from './tenant-policy-schema.js';
import { DataSourceCredentialSchema, UpstreamCredentialSchema } from './upstream-credential-schema.js';
import { checkOAuth, OAuthSchema, workspaceIdentitySchema } from './oauth-schema.js';

/** Lower-case DNS-label names: safe as Kubernetes names and never contain `__`, the separator of
 * namespaced tool names (D5). */
export const NAME = /^[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?$/;
const nameSchema = z
  .string()
  .max(40)
  .regex(NAME, 'must be 1-40 lower-case letters, digits or hyphens, not starting or ending with a hyphen');

/** Glob patterns over source names or namespaced tool names; `*` matches any run of characters. */
const patternSchema = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9_.*/-]+$/, 'may hold letters, digits, _ . - / and *');

const isoInstant = z.iso.datetime({
  offset: true,
  error: 'must be an ISO 8601 date-time, e.g. 2027-01-31T00:00:00Z',
});

export const AccessSchema = z
  .enum(['read', 'write'])
  .describe('read: read-only tools and the knowledge endpoints; write: every tool (write includes read).');
export type Access = z.infer<typeof AccessSchema>;

/** Request rates and daily quotas (issue 10), per workspace and per key; absent means unlimited.
 * Counted once across all replicas when shared state is configured. */
export const LimitsSchema = z
  .strictObject({
    requestsPerSecond: z.number().int().min(1).max(1_000_000).optional().describe('Requests per second.'),
    requestsPerMinute: z.number().int().min(1).max(60_000_000).optional().describe('Requests per minute.'),
    toolCallsPerDay: z
      .number()
      .int()
      .min(1)
      .max(1_000_000_000)
      .optional()
      .describe('MCP tools/call requests per UTC day.'),
    searchesPerDay: z
      .number()
      .int()
      .min(1)
      .max(1_000_000_000)
      .optional()
      .describe('Searches and queries (/agent/search, /agent/query, the search tool) per UTC day.'),
  })
  .describe('Request rates and daily quotas; unset fields are unlimited.');
export type LimitsConfig = z.infer<typeof LimitsSchema>;

/** What `/mcp` tools/list offers (issue 23): every tool the key may call, or only the gateway's own
 * tools, among them `find_tools` and `call_tool`, which find and call the others on demand. */
export const TOOL_DISCLOSURES = ['all', 'search'] as const;
export const ToolDisclosureSchema = z
  .enum(TOOL_DISCLOSURES)
  .describe(
    'all: tools/list returns every tool the key may call; search: only the gateway tools (find_tools, call_tool and the knowledge tools).',
  );
export type ToolDisclosure = z.infer<typeof ToolDisclosureSchema>;

export const ApiKeySchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9]{10}$/, 'must be the 10-character key id embedded in the key'),
  name: z.string().min(1).max(100).optional(),
  hash: z.string().regex(/^sha256:[0-9a-f]{64}$/, 'must be sha256:<64 lower-case hex digits>'),
  access: AccessSchema.default('read'),
  sources: z.array(patternSchema).max(100).default(['*']),
  tools: z.array(patternSchema).max(100).default(['*']),
  createdAt: isoInstant.optional(),
  expiresAt: isoInstant.optional(),
  revoked: z.boolean().default(false),
  limits: LimitsSchema.optional(),
  /** This key's tool disclosure, replacing its workspace's. */
  toolDisclosure: ToolDisclosureSchema.optional(),
});
export type ApiKeyConfig = z.infer<typeof ApiKeySchema>;

/** Static secrets, OAuth client credentials and token exchange (issue 29; upstream-credential-schema.ts). */
const CredentialSchema = UpstreamCredentialSchema;

export const TimeoutsSchema = z
  .strictObject({
    connectMs: z
      .number()
      .int()
      .min(100)
      .max(300_000)
      .default(10_000)
      .describe('Milliseconds to connect and (for 2025-era servers) initialise.'),
    listMs: z
      .number()
      .int()
      .min(100)
      .max(300_000)
      .default(15_000)
      .describe('Milliseconds for one tools/resources/prompts list request.'),
    callMs: z
      .number()
      .int()
      .min(100)
      .max(3_600_000)
      .default(60_000)
      .describe('Milliseconds for one tools/call, resources/read or prompts/get.'),
  })
  .describe('Upstream time-outs; a hop that takes longer fails with upstream_timeout.');

/** Per-source circuit breaker (D14): opens when the failure rate of recent calls crosses the
 * threshold, answers at once while open, and lets one probe through after `resetTimeoutMs`. */
export const BreakerSchema = z
  .strictObject({
    failureThresholdPercent: z
      .number()
      .int()
      .min(1)
      .max(100)
      .default(50)
      .describe('The breaker opens when more than this percentage of recent hops failed.'),
    /** Calls in the rolling window before the failure rate is judged at all. */
    minimumCalls: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .default(5)
      .describe('Hops in the window before the failure rate is judged at all.'),
    windowMs: z
      .number()
      .int()
      .min(1000)
      .max(600_000)
      .default(30_000)
      .describe('Length of the rolling window, milliseconds.'),
    resetTimeoutMs: z
      .number()
      .int()
      .min(100)
      .max(600_000)
      .default(15_000)
      .describe('How long the breaker stays open before one probe is let through, milliseconds.'),
  })
  .describe(
    'Per-source circuit breaker: unreachable, timed-out, 5xx and not-MCP answers count; 4xx and tool errors do not.',
  );
export type BreakerConfig = z.infer<typeof BreakerSchema>;

/** Upstream answers larger than this are cut off while streaming (issue 8): the whole JSON body,
 * or one event of an event stream. */
export const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;
export const SourceLimitsSchema = z
  .strictObject({
    maxResponseBytes: z
      .number()
      .int()
      .min(1024)
      .max(256 * 1024 * 1024)
      .default(DEFAULT_MAX_RESPONSE_BYTES)
      .describe(
        'Largest upstream answer accepted, in bytes (per event on an event stream); larger ones fail with upstream_response_too_large.',
      ),
  })
  .describe('Limits on what the upstream may send.');

export const ToolFilterSchema = z
  .strictObject({
    include: z
      .array(patternSchema)
      .max(100)
      .default(['*'])
      .describe('Glob patterns over upstream tool names to serve (* matches any run of characters).'),
    exclude: z
      .array(patternSchema)
      .max(100)
      .default([])
      .describe('Glob patterns over upstream tool names to leave out, applied after include.'),
  })
  .describe('Which of the upstream tools the workspace serves.');

/** How a source's tool, prompt and resource names reach clients (issue 24): `always` namespaces
 * them `<source>__<name>` (resource URIs `agw://<source>/…`); `never` exposes the upstream's own names
 * and URIs, leaving out (and reporting) any that another source or the gateway also claims; `auto`
 * exposes the upstream's own unless claimed twice, then the namespaced form. */
export const PrefixPolicySchema = z
  .enum(['always', 'never', 'auto'])
  .describe(
    "How the source's tool, prompt and resource names reach clients: always <source>__<name> (URIs agw://<source>/...); never the upstream's own names and URIs (a name another visible source or a gateway tool also claims is left out and reported); auto the upstream's own unless claimed twice, then <source>__<name>. The <source>__<name> form is accepted under every policy.",
  );
export type PrefixPolicy = z.infer<typeof PrefixPolicySchema>;

/** The fields of an MCP source without the cross-field rules (the CRDs reuse them). */
export const McpSourceFieldsSchema = z.strictObject({
  name: nameSchema,
  description: z.string().max(500).optional(),
  transport: z.enum(['streamable-http', 'sse', 'stdio']),
  url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  command: z.string().min(1).optional(),
  args: z.array(z.string()).default([]),
  cwd: z.string().min(1).optional(),
  env: z
    .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.union([z.string(), SecretRefSchema]))
    .default({}),
  credential: CredentialSchema.optional(),
  timeouts: TimeoutsSchema.default({ connectMs: 10_000, listMs: 15_000, callMs: 60_000 }),
  tools: ToolFilterSchema.default({ include: ['*'], exclude: [] }),
  breaker: BreakerSchema.default({
    failureThresholdPercent: 50,
    minimumCalls: 5,
    windowMs: 30_000,
    resetTimeoutMs: 15_000,
  }),
  limits: SourceLimitsSchema.default({ maxResponseBytes: DEFAULT_MAX_RESPONSE_BYTES }),
  /** Per-tool overrides of the permission derived from MCP annotations (upstream tool names). */
  permissions: z.record(z.string().min(1).max(128), AccessSchema).default({}),
  prefix: PrefixPolicySchema.default('always'),
  callListFloorMs: z
    .number()
    .int()
    .min(0)
    .max(60_000)
    .default(2000)
    .describe(
      'To decide a tools/call (which tool, which permission), a tool list this recent (ms) is reused even when the upstream marked it stale (ttlMs 0); an unknown tool or a denial is re-checked against a fresh list. tools/list always honours the upstream. 0: list before every call.',
    ),
});

export const McpSourceSchema = McpSourceFieldsSchema.superRefine((source, ctx) => {
  if (source.transport === 'stdio') {
    if (source.command === undefined)
      ctx.addIssue({ code: 'custom', path: ['command'], message: 'is required when transport is stdio' });
    if (source.url !== undefined)
      ctx.addIssue({ code: 'custom', path: ['url'], message: 'is not allowed when transport is stdio' });
    if (source.credential !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['credential'],
        message: 'is not used by stdio sources; pass secrets through env',
      });
  } else {
    if (source.url === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['url'],
        message: `is required when transport is ${source.transport}`,
      });
    if (source.command !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['command'],
        message: 'is only allowed when transport is stdio',
      });
  }
});
export type McpSourceConfig = z.infer<typeof McpSourceSchema>;

/** Data sources feed the workspace's knowledge index (issue 4). `files`: a directory tree. */
export const FilesDataSourceSchema = z.strictObject({
  name: nameSchema,
  type: z.literal('files'),
  description: z.string().max(500).optional(),
  /** The directory to index; relative paths resolve against the gateway's working directory. */
  path: z.string().min(1),
  include: z
    .array(z.string().min(1))
    .default(['**/*.md', '**/*.markdown', '**/*.txt', '**/*.html', '**/*.htm', '**/*.json']),
  exclude: z.array(z.string().min(1)).default(['**/node_modules/**', '**/.git/**']),
  maxFileBytes: z
    .number()
    .int()
    .min(1024)
    .max(64 * 1024 * 1024)
    .default(2 * 1024 * 1024),
  /** Re-sync shortly after files under `path` change, besides every `syncIntervalMs`. */
  watch: z.boolean().default(true),
  syncIntervalMs: z.number().int().min(1000).max(86_400_000).default(300_000),
});

/** `http`: a REST JSON endpoint, paginated, with a field mapping and a credential reference. */
const FieldPathSchema = z
  .string()
  .regex(/^[A-Za-z0-9_$-]+(\.[A-Za-z0-9_$-]+)*$/, 'must be a dot path like data.items or fields.title');
export const HttpDataSourceSchema = z.strictObject({
  name: nameSchema,
  type: z.literal('http'),
  description: z.string().max(500).optional(),
  url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
  credential: DataSourceCredentialSchema.optional(),
  /** Dot path to the array of items in each response; empty when the response itself is the array. */
  itemsPath: z.union([FieldPathSchema, z.literal('')]).default(''),
  pagination: z
    .discriminatedUnion('type', [
      z.strictObject({ type: z.literal('none') }),
      z.strictObject({
        type: z.literal('page'),
        pageParam: z.string().min(1).default('page'),
        startAt: z.number().int().min(0).default(1),
      }),
      z.strictObject({
        type: z.literal('cursor'),
        cursorParam: z.string().min(1).default('cursor'),
        nextCursorPath: FieldPathSchema,
      }),
      z.strictObject({ type: z.literal('link') }),
    ])
    .default({ type: 'none' }),
  fields: z.strictObject({
    id: FieldPathSchema,
    title: FieldPathSchema,
    body: z.union([FieldPathSchema, z.array(FieldPathSchema).min(1)]),
    url: FieldPathSchema.optional(),
    updatedAt: FieldPathSchema.optional(),
  }),
  maxPages: z.number().int().min(1).max(10_000).default(100),
  timeoutMs: z.number().int().min(100).max(300_000).default(15_000),
  syncIntervalMs: z.number().int().min(1000).max(86_400_000).default(300_000),
});

/** `mcp-resources`: the resources of one of the workspace's MCP sources. */
export const McpResourcesDataSourceSchema = z.strictObject({
  name: nameSchema,
  type: z.literal('mcp-resources'),
  description: z.string().max(500).optional(),
  mcpSource: nameSchema,
  /** Glob patterns over resource URIs. */
  include: z.array(z.string().min(1)).default(['**']),
  maxResources: z.number().int().min(1).max(100_000).default(1000),
  syncIntervalMs: z.number().int().min(1000).max(86_400_000).default(300_000),
});

/** `postgres`: a read-only SQL query whose rows are documents. The query must return the columns
 * `id`, `title` and `body` (and may return `url` and `updated_at`); alias them in SQL. */
export const PostgresDataSourceSchema = z.strictObject({
  name: nameSchema,
  type: z.literal('postgres'),
  description: z.string().max(500).optional(),
  /** A libpq connection URI as a secret reference; use a role that can only read. */
  connectionString: SecretRefSchema,
  /** One SELECT (or VALUES) statement; it runs in a READ ONLY transaction through a cursor. */
  query: z
    .string()
    .trim()
    .min(1)
    .max(20_000)
    .transform((query) => query.replace(/;\s*$/, ''))
    .refine((query) => /^(select|with|values|table)\b/i.test(query), {
      message: 'must be a single read-only SELECT, WITH … SELECT, VALUES or TABLE statement',
    }),
  /** Rows fetched per round trip from the server-side cursor. */
  batchSize: z.number().int().min(1).max(10_000).default(500),
  maxRows: z.number().int().min(1).max(10_000_000).default(100_000),
  /** statement_timeout of each statement of the sync, milliseconds. */
  timeoutMs: z.number().int().min(100).max(3_600_000).default(60_000),
  syncIntervalMs: z.number().int().min(1000).max(86_400_000).default(300_000),
});

export const DataSourceSchema = z.discriminatedUnion('type', [
  FilesDataSourceSchema,
  HttpDataSourceSchema,
  McpResourcesDataSourceSchema,
  PostgresDataSourceSchema,
]);
export type DataSourceConfig = z.infer<typeof DataSourceSchema>;
export const SOURCE_TYPES = ['files', 'http', 'mcp-resources', 'postgres'] as const;

/** A whole number in [min, max] whose refusal says so in words. */
const wholeBetween = (min: number, max: number) => {
  const error = `must be a whole number from ${min} to ${max}`;
  return z.number({ error }).int({ error }).min(min, { error }).max(max, { error });
};

/** The embeddings provider of hybrid search (issue 22, docs/configuration.md). */
export const EmbeddingsSchema = z.strictObject({
  /** The API base, e.g. http://127.0.0.1:11434/v1; `/embeddings` is appended. */
  baseUrl: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
    .refine((url) => !/^[a-z]+:\/\/[^/?#]*@/i.test(url), {
      error: 'must not carry credentials: put the key in apiKey (a secret reference)',
    }),
  model: z.string().min(1, 'must name the embedding model').max(200),
  /** Sent as `dimensions` when set; every vector returned must have this length. */
  dimensions: wholeBetween(1, 8192).optional(),
  /** Sent as `Authorization: Bearer …`; optional for local servers. */
  apiKey: SecretRefSchema.optional(),
  /** Texts per request. */
  batchSize: wholeBetween(1, 2048).default(64),
  /** Requests in flight at once, across all callers of the provider. */
  concurrency: wholeBetween(1, 16).default(2),
  /** The provider's own rate limit, retries included; unlimited when absent. */
  requestsPerMinute: wholeBetween(1, 1_000_000).optional(),
  /** Per request attempt. */
  timeoutMs: wholeBetween(100, 300_000).default(30_000),
  /** Retries of a request answered 429 or 5xx, timed out or not reached; other 4xx are not retried. */
  maxRetries: wholeBetween(0, 10).default(4),
  /** Vectors kept in memory by content hash, least recently used dropped first; 0 turns it off. */
  cacheMaxEntries: wholeBetween(0, 1_000_000).default(10_000),
  /** The whole budget of a search's question embedding (retries included); past it the search
   * answers lexically and says so. */
  queryTimeoutMs: wholeBetween(50, 60_000).default(2_000),
});
export type EmbeddingsConfig = z.infer<typeof EmbeddingsSchema>;

export const WorkspaceSchema = z
  .strictObject({
    name: nameSchema,
    /** The tenant namespace of the Workspace resource: set by the Kubernetes config source from the
     * rendered objects' label; in a file it names the workspace's entry of `policy.network.namespaces`
     * and fills `{namespace}` in `policy.files.allowedRoots` (the workspace name when unset). */
    namespace: z
      .string()
      .regex(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, 'must be a Kubernetes namespace name')
      .optional(),
    displayName: z.string().max(200).optional(),
    limits: LimitsSchema.optional(),
    mcpSources: z.array(McpSourceSchema).default([]),
    keys: z.array(ApiKeySchema).default([]),
    dataSources: z.array(DataSourceSchema).default([]),
    /** This workspace's embeddings provider, replacing `knowledge.embeddings`; `false`: none here
     * (lexical search only), whatever the gateway-wide setting. */
    embeddings: z.union([EmbeddingsSchema, z.literal(false)]).optional(),
    /** What tools/list offers this workspace's keys (a key's own setting wins). */
    toolDisclosure: ToolDisclosureSchema.default('all'),
    /** Who may sign in with an OAuth access token (issue 29; see oauth-schema.ts). */
    identity: workspaceIdentitySchema({
      access: AccessSchema.default('read'),
      limits: LimitsSchema,
      toolDisclosure: ToolDisclosureSchema,
      pattern: patternSchema,
    }).optional(),
  })
  .superRefine((workspace, ctx) => {
    reportDuplicates(
      workspace.dataSources.map((s) => s.name),
      ['dataSources'],
      'name',
      'data source name',
      ctx,
    );
    const mcpNames = new Set(workspace.mcpSources.map((s) => s.name));
    workspace.dataSources.forEach((source, index) => {
      if (source.type === 'mcp-resources' && !mcpNames.has(source.mcpSource))
        ctx.addIssue({
          code: 'custom',
          path: ['dataSources', index, 'mcpSource'],
          message: `no MCP source named ${source.mcpSource} in this workspace`,
        });
    });
    workspace.dataSources.forEach((source, index) => {
      if (mcpNames.has(source.name))
        ctx.addIssue({
          code: 'custom',
          path: ['dataSources', index, 'name'],
          message: `${source.name} is already an MCP source name; source names are shared`,
        });
    });
    reportDuplicates(
      workspace.mcpSources.map((s) => s.name),
      ['mcpSources'],
      'name',
      'source name',
      ctx,
    );
  });
export type WorkspaceConfig = z.infer<typeof WorkspaceSchema>;

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

export const AnswererSchema = z.strictObject({
  type: z.literal('openai-compatible'),
  /** The API base, e.g. https://api.openai.com/v1; `/chat/completions` is appended. */
  baseUrl: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
  model: z.string().min(1).max(200),
  /** Sent as `Authorization: Bearer …`; optional for local servers. */
  apiKey: SecretRefSchema.optional(),
  timeoutMs: z.number().int().min(100).max(120_000).default(20_000),
  maxTokens: z.number().int().min(16).max(8192).default(500),
  temperature: z.number().min(0).max(2).default(0),
  /** Characters of retrieved text sent to the model, best-ranked chunks first. */
  maxContextChars: z.number().int().min(1000).max(200_000).default(12_000),
});
export type AnswererConfig = z.infer<typeof AnswererSchema>;

export const KnowledgeSchema = z.strictObject({
  /** SQLite file of the embedded knowledge index; ':memory:' keeps it in memory only. */
  sqlitePath: z.string().min(1).default(':memory:'),
  /** The shared PostgreSQL index of the cluster shape; when set it replaces the SQLite index. */
  postgres: z
    .strictObject({
      /** A libpq connection URI, e.g. postgresql://user:pass@host/db, as a secret reference. */
      connectionString: SecretRefSchema,
      /** Create the schema and row-level-security policies at start (needs an owner role). */
      migrate: z.boolean().default(false),
      /** With `migrate`, the role the gateway's queries must run as is granted access. */
      appRole: z.string().min(1).optional(),
      /** Where vectors are ranked: `pgvector` inside PostgreSQL (HNSW), `memory` in each gateway
       * replica, `auto` pgvector when the extension exists or can be created, else memory. */
      vectorSearch: z.enum(['auto', 'pgvector', 'memory']).default('auto'),
    })
    .optional(),
  /** Adds `X-Service-Usage: results=N; est_tokens=M; tokenizer=o200k_base` to agent responses. */
  usageHints: z.boolean().default(false),
  /** /agent/query answers with an OpenAI-compatible chat model when set (extractive otherwise, and
   * whenever the model fails or answers without valid citations). */
  answerer: AnswererSchema.optional(),
  /** The embeddings provider of hybrid search for every workspace (a workspace's own `embeddings`
   * replaces it); absent: lexical search only. */
  embeddings: EmbeddingsSchema.optional(),
});

/** Encryption of secret values at rest in Redis (issue 28.8, docs/redis.md). */
export const SharedStateEncryptionSchema = z
  .strictObject({
    keys: z
      .array(SecretRefSchema)
      .min(1)
      .max(8)
      .describe(
        'Secret references, each to a random value of at least 32 characters. The first key encrypts and every key decrypts: rotate by appending a new key, then moving it first, then removing the old one (a rollout each, docs/redis.md).',
      ),
  })
  .describe(
    'Encrypts upstream sessions, cached lists and replica messages in Redis and derives the requestState seal keys; required with sharedState.redis.',
  );

/** State shared by all gateway replicas (issue 10): without it every replica keeps its own. */
export const SharedStateSchema = z
  .strictObject({
    redis: z
      .strictObject({
        /** As a secret reference: redis://[user:password@]host:port[/db] (rediss:// for TLS),
         * redis-sentinel://[user:password@]host:port[,host:port…]/<master>[/<db>], or
         * redis-cluster://[user:password@]host:port[,host:port…]. */
        url: SecretRefSchema,
        /** TLS to the Redis nodes (also implied by rediss://): the CA bundle (PEM, as a secret
         * reference) when it is not a system CA, and the certificate name when it is not the host. */
        tls: z
          .strictObject({
            ca: SecretRefSchema.optional(),
            servername: z.string().min(1).max(253).optional(),
          })
          .optional(),
        keyPrefix: z
          .string()
          .max(64)
          .regex(/^[A-Za-z0-9:_.-]*$/)
          .default('agw:'),
        connectTimeoutMs: z.number().int().min(100).max(60_000).default(2000),
        /** A shared-state command slower than this falls back to local state for that request. */
        commandTimeoutMs: z.number().int().min(5).max(10_000).default(50),
      })
      .optional(),
    encryption: SharedStateEncryptionSchema.optional(),
  })
  .superRefine((shared, ctx) => {
    // Secure by default (issue 28.8): Redis never holds an upstream session or a seal key in clear.
    if (shared.redis !== undefined && shared.encryption === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['encryption'],
        message:
          'is required with sharedState.redis: set encryption.keys to a secret reference holding a random value of at least 32 characters (see docs/redis.md)',
      });
  });
export type SharedStateConfig = z.infer<typeof SharedStateSchema>;

export const GatewayConfigSchema = z
  .strictObject({
    version: z.literal(1, { error: 'must be 1 (the only config version so far)' }),
    server: ServerSchema.default({
      host: '127.0.0.1',
      port: 8080,
      bodyLimitBytes: 1024 * 1024,
      allowedOrigins: [],
      allowedHosts: [],
      shutdownGraceMs: 10_000,
      drainDelayMs: 0,
      multiRound: MULTI_ROUND_DEFAULTS,
      subscriptions: SUBSCRIPTION_DEFAULTS,
      timeouts: INBOUND_TIMEOUT_DEFAULTS,
      console: { enabled: false },
    }),
    workspaces: z.array(WorkspaceSchema).default([]),
    knowledge: KnowledgeSchema.default({ sqlitePath: ':memory:', usageHints: false }),
    sharedState: SharedStateSchema.default({}),
    /** The audit trail (issue 29, docs/audit.md); see telemetry-schema.ts. */
    telemetry: TelemetrySchema.default(TELEMETRY_DEFAULTS),
    /** What tenant resources may reach (issue 20); see tenant-policy-schema.ts. */
    policy: TenantPolicySchema.optional(),
    /** The gateway as an OAuth resource server (issue 29); absent: API keys only. */
    oauth: OAuthSchema.optional(),
  })
  .superRefine((config, ctx) => {
    checkOAuth(config, ctx);
    reportDuplicates(
      config.workspaces.map((w) => w.name),
      ['workspaces'],
      'name',
      'workspace name',
      ctx,
    );
    const keyIds = config.workspaces.flatMap((w, wi) =>
      w.keys.map((k, ki) => ({ id: k.id, path: ['workspaces', wi, 'keys', ki, 'id'] })),
    );
    const seen = new Set<string>();
    for (const key of keyIds) {
      if (seen.has(key.id))
        ctx.addIssue({ code: 'custom', path: key.path, message: `duplicate key id ${key.id}` });
      seen.add(key.id);
    }
  });

export type GatewayConfig = z.infer<typeof GatewayConfigSchema>;
export type ServerConfig = GatewayConfig['server'];

function reportDuplicates(
  names: readonly string[],
  base: readonly (string | number)[],
  field: string,
  what: string,
  ctx: z.RefinementCtx,
): void {
  const seen = new Set<string>();
  names.forEach((name, index) => {
    if (seen.has(name))
      ctx.addIssue({ code: 'custom', path: [...base, index, field], message: `duplicate ${what} ${name}` });
    seen.add(name);
  });
}
