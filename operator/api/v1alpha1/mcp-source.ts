// McpSource: one upstream MCP server of a workspace. Its tools appear as <name>__<tool>, or by their
// own names under spec.prefix never or auto. The fields are the config contract's
// (gateway/config/mcp-source-schema.ts) minus stdio, which runs only in the embedded gateway, with the
// credential's secrets taken from Secrets of this namespace (upstream-credential.ts); or, instead of
// a url, spec.run: a server the operator runs in this namespace (mcp-run.ts, D25).
import { z } from 'zod';
import {
  AccessSchema,
  BreakerSchema,
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

export const McpSourceSpecSchema = z
  .strictObject({
    workspaceRef: WorkspaceRefSchema,
    description: z.string().max(500).optional().describe('What the source offers; shown in /agent/sources.'),
    transport: z
      .enum(['streamable-http', 'sse', 'stdio'])
      .optional()
      .describe(
        'streamable-http (2025 and 2026 servers; 2024 HTTP+SSE servers are detected) or sse; required with url, not used with run (run.transport). stdio is embedded-only.',
      ),
    url: z
      .string()
      .min(1)
      .max(2048)
      .regex(/^https?:\/\/[^\s]+$/)
      .optional()
      .describe(
        'The MCP endpoint (http or https URL); its addresses must be allowed by the admin policy.network (AddressNotAllowed otherwise). Give this or run.',
      ),
    run: McpRunSchema.optional(),
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

export const McpSourceStatusSchema = z
  .strictObject({
    observedGeneration: ObservedGenerationSchema.optional(),
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
        rule: 'has(self.url) != has(self.run)',
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
