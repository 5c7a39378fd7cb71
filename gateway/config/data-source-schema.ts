// The data sources that feed a workspace's knowledge index (issue 4): a directory tree, a REST JSON
// endpoint, an MCP source's resources, or a read-only PostgreSQL query.
import { z } from 'zod';
import { nameSchema } from './name-schema.js';
import { SecretRefSchema } from './secret-ref.js';
import { DataSourceCredentialSchema } from './upstream-credential-schema.js';

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
