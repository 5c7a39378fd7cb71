// McpSource: one upstream MCP server of a workspace. Its tools appear as <name>__<tool>, or by their
// own names under spec.prefix never or auto. The fields are the config contract's
// (gateway/config/mcp-source-schema.ts) minus stdio, which runs only in the embedded gateway, with the
// credential's secrets taken from Secrets of this namespace (upstream-credential.ts); or, instead of
// a url, spec.run: a server the operator runs in this namespace (mcp-run.ts, D25). With transport
// openapi, a REST API described by an OpenAPI document (spec.openapi, issue 44): a url, inline, or a
// key of a ConfigMap of this namespace, which the operator reads and renders inline (D-row
// "OpenAPI documents from ConfigMaps").
import { z } from 'zod';
import {
  AccessSchema,
  BreakerSchema,
  OpenApiIncludeSchema,
  OpenApiLimitsSchema,
  PinningSchema,
  PrefixPolicySchema,
  SourceLimitsSchema,
  TimeoutsSchema,
  ToolFilterSchema,
  ToolOverrideSchema,
} from '../../../gateway/config/index.js';
import { ConditionsSchema, ObservedGenerationSchema, WorkspaceRefSchema } from './common.js';
import {
  AGE_COLUMN,
  IMMUTABLE_WORKSPACE_REF,
  READY_COLUMN,
  SHORT_NAME_RULE,
  WORKSPACE_COLUMN,
  type CrdDefinition,
} from './crd-definition.js';
import { ENV_RULES, McpRunSchema, RUN_RULES, WRITABLE_VOLUME_RULES } from './mcp-run.js';
import { CREDENTIAL_RULES, UpstreamCredentialRefSchema } from './upstream-credential.js';

/** Largest spec.openapi.document.inline (what a rendered part can hold is checked by the plan). */
export const MAX_INLINE_DOCUMENT_CHARS = 1024 * 1024;

const ConfigMapKeyRefSchema = z
  .strictObject({
    name: z
      .string()
      .min(1)
      .max(253)
      .regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/)
      .describe('Name of a ConfigMap in this namespace.'),
    key: z
      .string()
      .min(1)
      .max(253)
      .regex(/^[-._a-zA-Z0-9]+$/)
      .describe('Key of the document inside the ConfigMap (data, not binaryData).'),
  })
  .describe('A ConfigMap key of this namespace holding the document; a change re-renders the source.');

export const OpenApiSpecSchema = z
  .strictObject({
    document: z
      .strictObject({
        url: z
          .string()
          .min(1)
          .max(2048)
          .regex(/^https?:\/\/[^\s]+$/)
          .optional()
          .describe(
            'Where the gateways fetch the document (through the tenant reach policy, without the credential). The operator never fetches it.',
          ),
        inline: z
          .string()
          .min(1)
          .max(MAX_INLINE_DOCUMENT_CHARS)
          .optional()
          .describe('The document itself (JSON or YAML).'),
        configMapKeyRef: ConfigMapKeyRefSchema.optional(),
      })
      .describe('The OpenAPI 3.0/3.1 document: exactly one of url, inline and configMapKeyRef.'),
    include: OpenApiIncludeSchema.optional(),
    limits: OpenApiLimitsSchema.optional(),
  })
  .describe(
    "With transport openapi: the REST API's OpenAPI document, which operations become tools, and bounds on reading it. spec.url is then the API base URL (default: the document's first server).",
  );

export const McpSourceSpecSchema = z
  .strictObject({
    workspaceRef: WorkspaceRefSchema,
    description: z.string().max(500).optional().describe('What the source offers; shown in /agent/sources.'),
    transport: z
      .enum(['streamable-http', 'sse', 'stdio', 'openapi'])
      .optional()
      .describe(
        'streamable-http (2025 and 2026 servers; 2024 HTTP+SSE servers are detected), sse, or openapi (a REST API described by spec.openapi); required with url, not used with run (run.transport). stdio is embedded-only.',
      ),
    url: z
      .string()
      .min(1)
      .max(2048)
      .regex(/^https?:\/\/[^\s]+$/)
      .optional()
      .describe(
        'The MCP endpoint (http or https URL), or with transport openapi the API base URL (optional); its addresses must be allowed by the admin policy.network (AddressNotAllowed otherwise). Give this or run.',
      ),
    run: McpRunSchema.optional(),
    openapi: OpenApiSpecSchema.optional(),
    credential: UpstreamCredentialRefSchema.optional(),
    timeouts: TimeoutsSchema.optional(),
    limits: SourceLimitsSchema.optional(),
    tools: ToolFilterSchema.optional(),
    breaker: BreakerSchema.optional(),
    permissions: z
      .record(z.string().min(1).max(128), AccessSchema)
      .optional()
      .describe(
        'Per-tool access overrides by upstream tool name (read or write); otherwise readOnlyHint decides.',
      ),
    prefix: PrefixPolicySchema.optional(),
    pinning: PinningSchema.optional(),
    overrides: z
      .record(z.string().min(1).max(128), ToolOverrideSchema)
      .meta({ maxProperties: 1000 })
      .optional()
      .describe('Per upstream tool name: the title, description and annotations the model sees.'),
    callListFloorMs: z
      .number()
      .int()
      .min(0)
      .max(60_000)
      .optional()
      .describe(
        'How old (ms) a tool list may be and still decide a tools/call when the upstream marks lists stale at once (ttlMs 0); refusals are re-checked on a fresh list. Default 2000; 0 lists before every call.',
      ),
  })
  .describe('An upstream MCP server of a workspace.');

/** Most skipped operations listed in status.openapi.skipped (skippedCount has them all). */
export const MAX_SKIPPED_IN_STATUS = 50;

const OpenApiStatusSchema = z
  .strictObject({
    document: z
      .enum(['url', 'inline', 'configMapKeyRef'])
      .describe('Where the document comes from; a url document is read by the gateways only.'),
    operations: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('Operations spec.openapi.include selects: tools plus skipped operations.'),
    tools: z.number().int().min(0).optional().describe('Operations served as tools.'),
    skippedCount: z.number().int().min(0).optional().describe('Operations that cannot be called as a tool.'),
    skipped: z
      .array(
        z.strictObject({
          operation: z.string().max(300).describe('The operation: method, path and operationId.'),
          reason: z.string().max(500).describe('Why it is not a tool.'),
        }),
      )
      .max(MAX_SKIPPED_IN_STATUS)
      .optional()
      .describe(`The first ${MAX_SKIPPED_IN_STATUS} skipped operations with their reasons.`),
    title: z.string().max(200).optional().describe("The document's info.title."),
    version: z.string().max(200).optional().describe("The document's info.version."),
    digest: z
      .string()
      .max(80)
      .optional()
      .describe('sha256 of the document text the counts were computed from.'),
  })
  .describe(
    'With transport openapi: what the operator read of the document (inline or configMapKeyRef); a url document is read by the gateways, and only its kind shows here.',
  );

export const McpSourceStatusSchema = z
  .strictObject({
    observedGeneration: ObservedGenerationSchema.optional(),
    openapi: OpenApiStatusSchema.optional(),
    conditions: ConditionsSchema.optional(),
    workload: z
      .string()
      .max(32)
      .optional()
      .describe('With spec.run: ready replicas / desired replicas of its Deployment, as last observed.'),
    lastActiveTime: z
      .string()
      .max(40)
      .optional()
      .describe(
        'With spec.run.scaleToZero: when a gateway last reported a call to the server (RFC 3339); the idle period counts from here.',
      ),
    pinning: z
      .strictObject({
        mode: z.enum(['pin', 'warn', 'off']).describe('The pinning mode the gateway judged under.'),
        unapprovedCount: z.number().int().min(0).describe('Tools whose definition is not the approved one.'),
        unapproved: z
          .array(
            z.strictObject({
              tool: z
                .string()
                .max(128)
                .describe('The upstream tool name (the key of spec.pinning.approved).'),
              change: z.enum(['new', 'changed']).describe('No digest approved yet, or a different one.'),
              fields: z
                .string()
                .max(200)
                .optional()
                .describe('What differs from the approved definition, when the gateway saw it.'),
              digest: z
                .string()
                .max(71)
                .describe('The digest to approve: put it in spec.pinning.approved under the tool name.'),
              description: z.string().max(1000).describe('The description the model would see.'),
            }),
          )
          .max(200)
          .optional()
          .describe('The tools held (pin) or served unapproved (warn).'),
        reportedAt: z.string().max(40).describe('When a gateway last reported (RFC 3339).'),
      })
      .optional()
      .describe(
        'Pinned tool definitions as the gateways last reported them: what awaits approval, with the digests to approve (docs/security.md).',
      ),
  })
  .describe('Whether the source is rendered for the gateways.');

export const MCP_SOURCE: CrdDefinition = {
  kind: 'McpSource',
  plural: 'mcpsources',
  singular: 'mcpsource',
  shortNames: ['agwmcp'],
  description:
    'An upstream MCP server of an Agent Gateway workspace; its tools appear as <name>__<tool>, or by their own names with spec.prefix never or auto.',
  spec: McpSourceSpecSchema,
  status: McpSourceStatusSchema,
  rules: {
    '': [SHORT_NAME_RULE],
    spec: [
      {
        rule: "!has(self.transport) || self.transport != 'stdio'",
        message:
          'transport stdio runs a local process and is only available in the embedded gateway; in Kubernetes use streamable-http or sse, or spec.run with run.transport stdio',
      },
      {
        rule: "(has(self.transport) && self.transport == 'openapi') || has(self.url) != has(self.run)",
        message: 'give exactly one of url (a server elsewhere) and run (a server the operator runs here)',
      },
      {
        rule: 'has(self.run) || has(self.transport)',
        message: 'transport is required with url',
      },
      {
        rule: '!has(self.run) || (!has(self.transport) && !has(self.credential))',
        message:
          'transport and credential are not used with run: the gateways reach the server over streamable-http with a token the operator mints (run.transport says how the image speaks)',
      },
      {
        rule: "has(self.openapi) == (has(self.transport) && self.transport == 'openapi')",
        message: 'openapi is required with transport openapi and used only with it',
      },
    ],
    'spec.openapi.document': [
      {
        rule: '(has(self.url) ? 1 : 0) + (has(self.inline) ? 1 : 0) + (has(self.configMapKeyRef) ? 1 : 0) == 1',
        message: 'give exactly one of url, inline and configMapKeyRef',
      },
    ],
    'spec.workspaceRef': IMMUTABLE_WORKSPACE_REF,
    'spec.credential': CREDENTIAL_RULES,
    'spec.run': RUN_RULES,
    'spec.run.env[]': ENV_RULES,
    'spec.run.permissions.writableVolume': WRITABLE_VOLUME_RULES,
  },
  printerColumns: [
    WORKSPACE_COLUMN,
    { name: 'Transport', type: 'string', jsonPath: '.spec.transport', description: 'MCP transport' },
    { name: 'URL', type: 'string', jsonPath: '.spec.url', description: 'The MCP endpoint' },
    {
      name: 'Workload',
      type: 'string',
      jsonPath: '.status.workload',
      description: 'With spec.run: ready/desired replicas of the server Deployment',
    },
    {
      name: 'Image',
      type: 'string',
      jsonPath: '.spec.run.image',
      description: 'With spec.run: the server image',
      priority: 1,
    },
    {
      name: 'Tools',
      type: 'integer',
      jsonPath: '.status.openapi.tools',
      description: 'With transport openapi: operations served as tools (inline or ConfigMap documents)',
      priority: 1,
    },
    {
      name: 'Prefix',
      type: 'string',
      jsonPath: '.spec.prefix',
      description: 'Naming policy: always (default), never or auto',
      priority: 1,
    },
    {
      name: 'Credential',
      type: 'string',
      jsonPath: '.spec.credential.type',
      description:
        'What the gateway presents upstream: bearer, header, oauthClientCredentials or tokenExchange',
      priority: 1,
    },
    READY_COLUMN,
    AGE_COLUMN,
  ],
  selectableFields: ['.spec.workspaceRef.name'],
};
