// An upstream MCP server of a workspace (D5, D14): how to reach it (transport, URL or command,
// credential), its time-outs, circuit breaker and response limit, which of its tools are served,
// under which names and with which permissions.
import { z } from 'zod';
import { AccessSchema } from './access-schema.js';
import { nameSchema, patternSchema } from './name-schema.js';
import { SecretRefSchema } from './secret-ref.js';
import { UpstreamCredentialSchema } from './upstream-credential-schema.js';

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

/** Set only by the operator on a source it runs (McpSource spec.run, D25): the Service it rendered.
 * The gateway's network guard lets this source, and only it, dial exactly this host and port even
 * where the reach policy denies cluster addresses, and only when the host is a Service of the
 * workspace's own namespace (`<name>.<namespace>.svc.…`). A tenant's McpSource has no such field:
 * the operator writes it into the rendered object, which only it and cluster admins can write. */
export const WorkloadMarkSchema = z
  .strictObject({
    host: z
      .string()
      .min(1)
      .max(253)
      .regex(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?\.[a-z0-9]([a-z0-9-]*[a-z0-9])?\.svc(\.[a-z0-9-]+)*$/, {
        message: 'must be a Service host name <name>.<namespace>.svc.<cluster domain>',
      }),
    port: z.number().int().min(1).max(65_535),
    wake: z
      .strictObject({
        url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
        timeoutMs: z.number().int().min(1000).max(600_000),
        touchIntervalMs: z.number().int().min(1000).max(600_000).default(30_000),
      })
      .optional()
      .describe(
        'Scale to zero: the operator endpoint that records calls and wakes the server (with the source token), and how long a waking call waits.',
      ),
  })
  .describe('The Service of a source the operator runs (written by the operator only).');
export type WorkloadMark = z.infer<typeof WorkloadMarkSchema>;

/** Pinned tool definitions (issue 41, D26): the digest of each tool's definition as an admin
 * approved it. `pin` holds a new or changed tool out of lists and calls until its digest is approved;
 * `warn` serves it and alerts; `off` records nothing. */
export const PinningSchema = z
  .strictObject({
    mode: z
      .enum(['pin', 'warn', 'off'])
      .default('off')
      .describe(
        'pin: a tool whose definition is not approved is held out of lists and calls; warn: served, with a warning, an Event and a metric; off: definitions are not checked.',
      ),
    approved: z
      .record(
        z.string().min(1).max(128),
        z
          .string()
          .max(71)
          .regex(/^sha256:[0-9a-f]{64}$/, 'must be sha256:<64 lower-case hex digits>'),
      )
      .default({})
      .refine((approved) => Object.keys(approved).length <= 1000, 'at most 1000 approved tools')
      .meta({ maxProperties: 1000 })
      .describe(
        'Upstream tool name to the digest of its approved definition (name, title, description, input and output schema, annotations, after overrides), as /agent/sources, the McpSource status and `agent-gateway tools approve` show it.',
      ),
  })
  .describe('Pinned tool definitions: what an admin approved is what the model sees (docs/security.md).');
export type PinningConfig = z.infer<typeof PinningSchema>;

/** What an admin changes in a tool's presentation (issue 41), applied before pinning and ranking. */
export const ToolOverrideSchema = z
  .strictObject({
    title: z.string().min(1).max(200).optional().describe("Replaces the tool's title."),
    description: z.string().max(4000).optional().describe("Replaces the tool's description."),
    annotations: z
      .strictObject({
        title: z.string().min(1).max(200).optional().describe('The annotations title.'),
        readOnlyHint: z
          .boolean()
          .optional()
          .describe('Whether the tool only reads; false makes a call need write access.'),
        destructiveHint: z.boolean().optional().describe('Whether the tool may destroy data.'),
        idempotentHint: z.boolean().optional().describe('Whether repeating a call has no further effect.'),
        openWorldHint: z.boolean().optional().describe('Whether the tool reaches beyond the workspace.'),
      })
      .optional()
      .describe(
        "Annotation values that replace the upstream's (the others are kept); readOnlyHint decides the permission a call needs unless permissions names the tool.",
      ),
  })
  .describe("An admin's title, description and annotations for one tool.");
export type ToolOverride = z.infer<typeof ToolOverrideSchema>;

/** Where an OpenAPI source's document comes from (issue 44): exactly one of a URL (fetched through
 * the tenant reach policy, without the source's credential), a file path (file config) or the text. */
const OpenApiDocumentSchema = z
  .union([
    z.strictObject({
      url: z
        .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
        .describe('Where to fetch the document.'),
    }),
    z.strictObject({
      path: z.string().min(1).max(4096).describe('A file holding the document (JSON or YAML).'),
    }),
    z.strictObject({
      inline: z
        .string()
        .min(1)
        .max(32 * 1024 * 1024)
        .describe('The document itself (JSON or YAML); the operator puts a ConfigMap here.'),
    }),
  ])
  .describe('The OpenAPI 3.0/3.1 document: one of url, path or inline.');

/** Which operations of an OpenAPI document become tools (the CRD reuses it). */
export const OpenApiIncludeSchema = z
  .strictObject({
    tags: z
      .array(z.string().min(1).max(200).describe('A tag.'))
      .max(200)
      .optional()
      .describe('Operations with one of these tags.'),
    methods: z
      .array(z.enum(['GET', 'PUT', 'POST', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS', 'TRACE']))
      .max(8)
      .optional()
      .describe('Operations of these HTTP methods.'),
    paths: z
      .array(z.string().min(1).max(500).describe('A path glob.'))
      .max(200)
      .optional()
      .describe('Operations whose path matches one of these globs (`*` one segment, `**` any).'),
    operationIds: z
      .array(z.string().min(1).max(200).describe('An operationId.'))
      .max(2000)
      .optional()
      .describe('Operations with one of these operationIds.'),
  })
  .describe(
    'Which operations become tools (all when empty): by tag, HTTP method, path glob (`*` one segment, `**` any) or operationId; an operation must pass every list given.',
  );

/** Bounds on an OpenAPI document (the CRD reuses it). */
export const OpenApiLimitsSchema = z
  .strictObject({
    maxDocumentBytes: z
      .number()
      .int()
      .min(1024)
      .max(64 * 1024 * 1024)
      .optional()
      .describe('The largest document read, in bytes (20 MiB).'),
    maxOperations: z
      .number()
      .int()
      .min(1)
      .max(20_000)
      .optional()
      .describe('The most operations in the whole document (2,000).'),
    maxSchemaDepth: z
      .number()
      .int()
      .min(1)
      .max(256)
      .optional()
      .describe("A schema's deepest nesting; deeper operations are skipped (32)."),
    maxInputSchemaBytes: z
      .number()
      .int()
      .min(1024)
      .max(16 * 1024 * 1024)
      .optional()
      .describe("A tool's largest input schema, in bytes; larger operations are skipped (256 KiB)."),
  })
  .describe(
    "Bounds on the document: its size (20 MiB), its operations (2,000), a schema's depth (32) and a tool's input schema (256 KiB); defaults in parentheses.",
  );

/** An OpenAPI source (issue 44): a REST API whose operations become tools. */
export const OpenApiSourceSchema = z
  .strictObject({
    document: OpenApiDocumentSchema,
    include: OpenApiIncludeSchema.default({}),
    limits: OpenApiLimitsSchema.default({}),
  })
  .describe('A REST API described by an OpenAPI document: each operation is a tool (transport openapi).');
export type OpenApiSourceConfig = z.infer<typeof OpenApiSourceSchema>;

/** The fields of an MCP source without the cross-field rules (the CRDs reuse them). */
export const McpSourceFieldsSchema = z.strictObject({
  name: nameSchema,
  description: z.string().max(500).optional(),
  transport: z.enum(['streamable-http', 'sse', 'stdio', 'openapi']),
  url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  command: z.string().min(1).optional(),
  args: z.array(z.string()).default([]),
  cwd: z.string().min(1).optional(),
  env: z
    .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.union([z.string(), SecretRefSchema]))
    .default({}),
  credential: CredentialSchema.optional(),
  openapi: OpenApiSourceSchema.optional(),
  workload: WorkloadMarkSchema.optional(),
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
  pinning: PinningSchema.default({ mode: 'off', approved: {} }),
  overrides: z
    .record(z.string().min(1).max(128), ToolOverrideSchema)
    .default({})
    .refine((overrides) => Object.keys(overrides).length <= 1000, 'at most 1000 overridden tools')
    .meta({ maxProperties: 1000 })
    .describe('Per upstream tool name: the title, description and annotations the model sees.'),
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
  } else if (source.transport === 'openapi') {
    // `url` is the API's base URL; without it, the document's first server.
    if (source.openapi === undefined)
      ctx.addIssue({ code: 'custom', path: ['openapi'], message: 'is required when transport is openapi' });
    if (source.command !== undefined)
      ctx.addIssue({ code: 'custom', path: ['command'], message: 'is only allowed when transport is stdio' });
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
  if (source.openapi !== undefined && source.transport !== 'openapi')
    ctx.addIssue({ code: 'custom', path: ['openapi'], message: 'is only allowed when transport is openapi' });
  if (source.workload !== undefined && !urlNamesWorkload(source.url, source.workload))
    ctx.addIssue({
      code: 'custom',
      path: ['workload'],
      message: 'must name the host and port of the source url (http://<host>:<port>/...)',
    });
});

/** Whether `url` is plain http to exactly the workload's host and port. */
function urlNamesWorkload(url: string | undefined, workload: WorkloadMark): boolean {
  if (url === undefined) return false;
  try {
    const parsed = new URL(url);
    return (
      parsed.protocol === 'http:' &&
      parsed.hostname === workload.host &&
      Number(parsed.port === '' ? 80 : parsed.port) === workload.port
    );
  } catch {
    return false;
  }
}
export type McpSourceConfig = z.infer<typeof McpSourceSchema>;
