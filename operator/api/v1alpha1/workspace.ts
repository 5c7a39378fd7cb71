// Workspace: one tenant of the gateway. Every ApiKey, McpSource and DataSource names one in its
// namespace; the workspace name is what keys are bound to and what the gateways serve.
import { z } from 'zod';
import { LimitsSchema, ToolDisclosureSchema } from '../../../gateway/config/index.js';
import { ConditionsSchema, ObservedGenerationSchema } from './common.js';
import {
  AGE_COLUMN,
  READY_COLUMN,
  REASON_COLUMN,
  SHORT_NAME_RULE,
  type CrdDefinition,
} from './crd-definition.js';
import { WORKSPACE_GOVERNANCE_RULES, WorkspaceGovernanceSpecSchema } from './workspace-governance.js';
import { WORKSPACE_EMBEDDINGS_RULES, WorkspaceEmbeddingsSpecSchema } from './workspace-embeddings.js';
import { WORKSPACE_IDENTITY_RULES, WorkspaceIdentitySpecSchema } from './workspace-identity.js';
import { WORKSPACE_TOOL_LIMIT_RULES } from './workspace-tool-limits.js';

export const WorkspaceSpecSchema = z
  .strictObject({
    displayName: z.string().max(200).optional().describe('A human-readable name shown to operators.'),
    description: z.string().max(2000).optional().describe('What this workspace is for.'),
    limits: LimitsSchema.optional(),
    embeddings: WorkspaceEmbeddingsSpecSchema.optional(),
    toolDisclosure: ToolDisclosureSchema.optional().describe(
      "What /mcp tools/list offers this workspace's keys: all (every tool the key may call, the default) or search (find_tools and call_tool, which find and call tools on demand). An ApiKey's own setting wins.",
    ),
    identity: WorkspaceIdentitySpecSchema.optional(),
    governance: WorkspaceGovernanceSpecSchema.optional(),
  })
  .describe('A workspace: the unit of isolation; an API key sees only its own workspace.');

export const WorkspaceStatusSchema = z
  .strictObject({
    observedGeneration: ObservedGenerationSchema.optional(),
    conditions: ConditionsSchema.optional(),
    keys: z.number().int().min(0).optional().describe('API keys served for this workspace.'),
    sources: z.number().int().min(0).optional().describe('MCP and data sources served for this workspace.'),
    revision: z
      .string()
      .max(64)
      .optional()
      .describe('Revision of the configuration rendered for the gateways (shown in /agent/sources).'),
    issuers: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe(
        'Authorization servers the gateways trust for this workspace (0 when spec.identity is not used).',
      ),
  })
  .describe('What the operator last rendered for this workspace.');

export const WORKSPACE: CrdDefinition = {
  kind: 'Workspace',
  plural: 'workspaces',
  singular: 'workspace',
  shortNames: ['agws'],
  description:
    'A workspace of Agent Gateway: one endpoint per workspace for AI agents, in front of its MCP and data sources. Its name must be unique across namespaces.',
  spec: WorkspaceSpecSchema,
  status: WorkspaceStatusSchema,
  rules: {
    '': [SHORT_NAME_RULE],
    'spec.embeddings': WORKSPACE_EMBEDDINGS_RULES,
    ...WORKSPACE_IDENTITY_RULES,
    ...WORKSPACE_TOOL_LIMIT_RULES,
    ...WORKSPACE_GOVERNANCE_RULES,
  },
  printerColumns: [
    READY_COLUMN,
    REASON_COLUMN,
    { name: 'Keys', type: 'integer', jsonPath: '.status.keys', description: 'API keys served' },
    { name: 'Sources', type: 'integer', jsonPath: '.status.sources', description: 'Sources served' },
    {
      name: 'Issuers',
      type: 'integer',
      jsonPath: '.status.issuers',
      description: 'Authorization servers trusted for OAuth sign-in',
      priority: 1,
    },
    AGE_COLUMN,
  ],
  selectableFields: [],
};
