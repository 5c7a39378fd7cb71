// A workspace (D4): one tenant's MCP sources, API keys, data sources, limits, embeddings, tool
// disclosure and OAuth identity, with the rules that tie them together (unique names, an
// mcp-resources data source naming one of the workspace's MCP sources).
import { z } from 'zod';
import { AccessSchema, ToolDisclosureSchema } from './access-schema.js';
import { ApiKeySchema } from './api-key-schema.js';
import { DataSourceSchema } from './data-source-schema.js';
import { EmbeddingsSchema } from './embeddings-schema.js';
import { GovernanceSchema } from './governance-schema.js';
import { LimitsSchema } from './limits-schema.js';
import { McpSourceSchema } from './mcp-source-schema.js';
import { nameSchema, patternSchema, reportDuplicates } from './name-schema.js';
import { workspaceIdentitySchema } from './oauth-schema.js';

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
    /** Policy, per-tool limits and guardrails over this workspace's tool calls (issue 41). */
    governance: GovernanceSchema.prefault({}),
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
