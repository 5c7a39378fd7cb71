// DataSource: a source of documents for a workspace's knowledge index — files (a path mounted into
// the gateway pods, e.g. from a PVC or ConfigMap), an HTTP JSON API, the resources of one of the
// workspace's McpSources, or a read-only PostgreSQL query. Exactly the block named by `type` is set.
import { z } from 'zod';
import {
  ConditionsSchema,
  ObservedGenerationSchema,
  SecretKeyRefSchema,
  WorkspaceRefSchema,
} from './common.js';
import {
  AGE_COLUMN,
  IMMUTABLE_WORKSPACE_REF,
  READY_COLUMN,
  SHORT_NAME_RULE,
  WORKSPACE_COLUMN,
  type CelRule,
  type CrdDefinition,
} from './crd-definition.js';
import { CREDENTIAL_RULES, NO_TOKEN_EXCHANGE, UpstreamCredentialRefSchema } from './upstream-credential.js';

const glob = z.string().min(1).max(500).describe('A glob pattern.');
const interval = z
  .number()
  .int()
  .min(1000)
  .max(86_400_000)
  .optional()
  .describe('Milliseconds between scheduled syncs (default 300000).');
const fieldPath = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9_$-]+(\.[A-Za-z0-9_$-]+)*$/)
  .describe('A dot path into each item, e.g. fields.title.');

const FilesSpec = z
  .strictObject({
    path: z
      .string()
      .min(1)
      .max(4096)
      .describe(
        'Absolute directory inside the gateway pods to index (mount it from a PVC or ConfigMap); it must lie under one of the admin policy.files.allowedRoots, or the resource is refused with PathNotAllowed.',
      ),
    include: z
      .array(glob)
      .max(100)
      .optional()
      .describe('Glob patterns of files to index (default: Markdown, text, HTML, JSON).'),
    exclude: z.array(glob).max(100).optional().describe('Glob patterns of files to skip.'),
    maxFileBytes: z
      .number()
      .int()
      .min(1024)
      .max(67_108_864)
      .optional()
      .describe('Larger files are skipped (default 2 MiB).'),
    watch: z.boolean().optional().describe('Re-sync soon after files change (default true).'),
    syncIntervalMs: interval,
  })
  .describe('Settings of a files data source.');

const HttpSpec = z
  .strictObject({
    url: z
      .string()
      .min(1)
      .max(2048)
      .regex(/^https?:\/\/[^\s]+$/)
      .describe(
        'The JSON endpoint (http or https URL); its addresses, redirects and next pages must be allowed by the admin policy.network (AddressNotAllowed otherwise).',
      ),
    credential: UpstreamCredentialRefSchema.optional(),
    itemsPath: z
      .string()
      .max(200)
      .regex(/^([A-Za-z0-9_$-]+(\.[A-Za-z0-9_$-]+)*)?$/)
      .optional()
      .describe('Dot path to the array of items in each response; empty when the response is the array.'),
    pagination: z
      .strictObject({
        type: z.enum(['none', 'page', 'cursor', 'link']).describe('How further pages are requested.'),
        pageParam: z
          .string()
          .min(1)
          .max(100)
          .optional()
          .describe('Query parameter of the page number (type page).'),
        startAt: z.number().int().min(0).max(1_000_000).optional().describe('First page number (type page).'),
        cursorParam: z
          .string()
          .min(1)
          .max(100)
          .optional()
          .describe('Query parameter of the cursor (type cursor).'),
        nextCursorPath: fieldPath
          .optional()
          .describe('Dot path of the next cursor in a response (type cursor).'),
      })
      .optional()
      .describe('Pagination (default none).'),
    fields: z
      .strictObject({
        id: fieldPath,
        title: fieldPath,
        body: z.array(fieldPath).min(1).max(20).describe('Dot paths whose text makes the document body.'),
        url: fieldPath.optional(),
        updatedAt: fieldPath.optional(),
      })
      .describe('Where each document field is found in an item.'),
    maxPages: z
      .number()
      .int()
      .min(1)
      .max(10_000)
      .optional()
      .describe('At most this many pages per sync (default 100).'),
    timeoutMs: z
      .number()
      .int()
      .min(100)
      .max(300_000)
      .optional()
      .describe('Per-request time-out (default 15000).'),
    syncIntervalMs: interval,
  })
  .describe('Settings of an http data source.');

const McpResourcesSpec = z
  .strictObject({
    mcpSourceRef: z
      .strictObject({
        name: z.string().min(1).max(40).describe('Name of an McpSource of the same workspace.'),
      })
      .describe('The McpSource whose resources are indexed.'),
    include: z.array(glob).max(100).optional().describe('Glob patterns over resource URIs (default all).'),
    maxResources: z
      .number()
      .int()
      .min(1)
      .max(100_000)
      .optional()
      .describe('At most this many resources (default 1000).'),
    syncIntervalMs: interval,
  })
  .describe('Settings of an mcp-resources data source.');

const PostgresSpec = z
  .strictObject({
    connectionString: z
      .strictObject({ secretKeyRef: SecretKeyRefSchema })
      .describe(
        'A libpq connection URI in a Secret; use a role that can only read. Its hosts must be allowed by the admin policy.network; Unix sockets are refused.',
      ),
    query: z
      .string()
      .min(1)
      .max(20_000)
      .describe('One read-only SELECT returning id, title and body (and optionally url, updated_at).'),
    batchSize: z.number().int().min(1).max(10_000).optional().describe('Rows per round trip (default 500).'),
    maxRows: z
      .number()
      .int()
      .min(1)
      .max(10_000_000)
      .optional()
      .describe('At most this many rows (default 100000).'),
    timeoutMs: z
      .number()
      .int()
      .min(100)
      .max(3_600_000)
      .optional()
      .describe('statement_timeout, milliseconds (default 60000).'),
    syncIntervalMs: interval,
  })
  .describe('Settings of a postgres data source.');

export const DataSourceSpecSchema = z
  .strictObject({
    workspaceRef: WorkspaceRefSchema,
    type: z
      .enum(['files', 'http', 'mcp-resources', 'postgres'])
      .describe('Which kind of source; set the block of that name.'),
    description: z.string().max(500).optional().describe('What the source holds; shown in /agent/sources.'),
    files: FilesSpec.optional(),
    http: HttpSpec.optional(),
    mcpResources: McpResourcesSpec.optional(),
    postgres: PostgresSpec.optional(),
  })
  .describe('A data source of a workspace knowledge index.');

export const DataSourceStatusSchema = z
  .strictObject({
    observedGeneration: ObservedGenerationSchema.optional(),
    conditions: ConditionsSchema.optional(),
  })
  .describe('Whether the source is rendered for the gateways.');

const blockRule = (type: string, block: string): CelRule => ({
  rule: `(self.type == '${type}') == has(self.${block})`,
  message: `spec.${block} must be set exactly when spec.type is ${type}`,
});

export const DATA_SOURCE: CrdDefinition = {
  kind: 'DataSource',
  plural: 'datasources',
  singular: 'datasource',
  shortNames: ['agwds'],
  description: 'A data source of an Agent Gateway workspace, indexed for /agent/search and /agent/query.',
  spec: DataSourceSpecSchema,
  status: DataSourceStatusSchema,
  rules: {
    '': [SHORT_NAME_RULE],
    spec: [
      blockRule('files', 'files'),
      blockRule('http', 'http'),
      blockRule('mcp-resources', 'mcpResources'),
      blockRule('postgres', 'postgres'),
    ],
    'spec.workspaceRef': IMMUTABLE_WORKSPACE_REF,
    'spec.http.pagination': [
      {
        rule: "self.type != 'cursor' || has(self.nextCursorPath)",
        message: 'pagination.nextCursorPath is required when pagination.type is cursor',
      },
    ],
    'spec.http.credential': [...CREDENTIAL_RULES, NO_TOKEN_EXCHANGE],
  },
  printerColumns: [
    WORKSPACE_COLUMN,
    { name: 'Type', type: 'string', jsonPath: '.spec.type', description: 'Kind of source' },
    {
      name: 'Credential',
      type: 'string',
      jsonPath: '.spec.http.credential.type',
      description: 'What an http source presents upstream: bearer, header or oauthClientCredentials',
      priority: 1,
    },
    READY_COLUMN,
    AGE_COLUMN,
  ],
  selectableFields: ['.spec.workspaceRef.name'],
};
