// McpSource: one upstream MCP server of a workspace. Its tools appear as <name>__<tool>, or by their
// own names under spec.prefix never or auto. The fields are the config contract's
// (gateway/config/mcp-source-schema.ts) minus stdio, which runs only in the embedded gateway, with the
// credential's secrets taken from Secrets of this namespace (upstream-credential.ts).
import { z } from 'zod';
import {
  AccessSchema,
  BreakerSchema,
  PrefixPolicySchema,
  SourceLimitsSchema,
  TimeoutsSchema,
  ToolFilterSchema,
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
import { CREDENTIAL_RULES, UpstreamCredentialRefSchema } from './upstream-credential.js';

export const McpSourceSpecSchema = z
  .strictObject({
    workspaceRef: WorkspaceRefSchema,
    description: z.string().max(500).optional().describe('What the source offers; shown in /agent/sources.'),
    transport: z
      .enum(['streamable-http', 'sse', 'stdio'])
      .describe(
        'streamable-http (2025 and 2026 servers; 2024 HTTP+SSE servers are detected) or sse. stdio is embedded-only.',
      ),
    url: z
      .string()
      .min(1)
      .max(2048)
      .regex(/^https?:\/\/[^\s]+$/)
      .describe(
        'The MCP endpoint (http or https URL); its addresses must be allowed by the admin policy.network (AddressNotAllowed otherwise).',
      ),
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
        rule: "self.transport != 'stdio'",
        message:
          'transport stdio runs a local process and is only available in the embedded gateway; in Kubernetes use streamable-http or sse',
      },
    ],
    'spec.workspaceRef': IMMUTABLE_WORKSPACE_REF,
    'spec.credential': CREDENTIAL_RULES,
  },
  printerColumns: [
    WORKSPACE_COLUMN,
    { name: 'Transport', type: 'string', jsonPath: '.spec.transport', description: 'MCP transport' },
    { name: 'URL', type: 'string', jsonPath: '.spec.url', description: 'The MCP endpoint' },
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
