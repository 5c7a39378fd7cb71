export { EmbeddingFailed } from './embedding-provider.js';
export type { EmbeddingProvider, EmbeddingFailure } from './embedding-provider.js';
export { HttpEmbeddingProvider } from './http-embedding-provider.js';
export type { HttpEmbeddingConfig, HttpEmbeddingOptions } from './http-embedding-provider.js';
export { CachedEmbeddingProvider } from './cached-embedding-provider.js';
export { EmbeddingCache } from './embedding-cache.js';
export { HashingEmbeddingProvider, hashingVector } from './hashing-embedding-provider.js';
export { embeddingProviderFor } from './embedding-provider-for.js';
export { readEmbeddings } from './embeddings-response.js';
export { TokenBucket, systemClock } from './token-bucket.js';
export type { Clock } from './token-bucket.js';
export { ConcurrencyLimit } from './concurrency-limit.js';
export {
  backoffMs,
  retryAfterMs,
  isRetryableStatus,
  DEFAULT_BACKOFF,
  MAX_RETRY_AFTER_MS,
} from './retry-schedule.js';
export type { BackoffShape } from './retry-schedule.js';
export { WorkspaceEmbeddings, embeddingsFor, QUERY_BACKOFF_MS } from './workspace-embeddings.js';
export type { QueryEmbeddings } from './workspace-embeddings.js';
