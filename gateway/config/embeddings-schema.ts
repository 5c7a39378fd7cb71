// The embeddings provider of hybrid search (issue 22): gateway-wide under `knowledge.embeddings`, or
// a workspace's own.
import { z } from 'zod';
import { SecretRefSchema } from './secret-ref.js';

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
  /** The longest one embedding pass of a data source may run; a pass that reaches it stops and
   * resumes by itself a few seconds later where it stopped. Absent: no limit (each request still
   * has `timeoutMs`). */
  passTimeoutMs: wholeBetween(10_000, 86_400_000).optional(),
});
export type EmbeddingsConfig = z.infer<typeof EmbeddingsSchema>;
