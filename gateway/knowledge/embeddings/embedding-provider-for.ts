// Builds the provider a config asks for (issue 22): the HTTP client behind the content-hash cache.
// Not wired into search or sync yet; the caller passes the workspace's NetworkGuard.fetch() when the
// tenant reach policy bounds it, and may share one EmbeddingCache across config reloads.
import type { EmbeddingsConfig } from '../../config/index.js';
import { CachedEmbeddingProvider } from './cached-embedding-provider.js';
import { EmbeddingCache } from './embedding-cache.js';
import type { EmbeddingProvider } from './embedding-provider.js';
import { HttpEmbeddingProvider, type HttpEmbeddingOptions } from './http-embedding-provider.js';

export function embeddingProviderFor(
  config: EmbeddingsConfig,
  options: HttpEmbeddingOptions & { readonly cache?: EmbeddingCache },
): EmbeddingProvider {
  const http = new HttpEmbeddingProvider(config, options);
  const cache = options.cache ?? new EmbeddingCache(config.cacheMaxEntries);
  return new CachedEmbeddingProvider(http, cache);
}
