// The knowledge index (issue 4, the `knowledge` section): the embedded SQLite file or the shared
// PostgreSQL index, usage hints, the chat model that answers /agent/query, and the gateway-wide
// embeddings provider.
import { z } from 'zod';
import { EmbeddingsSchema } from './embeddings-schema.js';
import { SecretRefSchema } from './secret-ref.js';

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
