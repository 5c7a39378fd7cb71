// The OpenAI-compatible embeddings client (issue 22): `POST {baseUrl}/embeddings`, which OpenAI,
// Azure OpenAI, Ollama, vLLM, llama.cpp's server and Hugging Face TEI all serve. Texts go in batches
// of batchSize, at most `concurrency` requests in flight, under its own rate limit; 429, 5xx and
// network failures are retried with backoff, other 4xx are not; every response is checked before use
// (embeddings-response.ts). Requests go through the fetch it is given, which is a workspace's
// NetworkGuard.fetch() when the tenant reach policy bounds that workspace.
import { resolveSecret, type EmbeddingsConfig, type SecretReader } from '../../config/index.js';
import { findReachDenied } from '../../reach/index.js';
import { ConcurrencyLimit } from './concurrency-limit.js';
import { EmbeddingFailed, type EmbeddingProvider } from './embedding-provider.js';
import { readEmbeddings } from './embeddings-response.js';
import { readLimited } from '../../platform/read-limited.js';
import {
  backoffMs,
  DEFAULT_BACKOFF,
  isRetryableStatus,
  MAX_RETRY_AFTER_MS,
  retryAfterMs,
  type BackoffShape,
} from './retry-schedule.js';
import { systemClock, TokenBucket, type Clock } from './token-bucket.js';

export type HttpEmbeddingConfig = Omit<EmbeddingsConfig, 'cacheMaxEntries'>;

export interface HttpEmbeddingOptions {
  readonly secrets: SecretReader;
  /** Defaults to the global fetch; pass NetworkGuard.fetch() to put requests under a reach policy. */
  readonly fetch?: typeof fetch;
  readonly clock?: Clock;
  readonly random?: () => number;
  readonly backoff?: BackoffShape;
}

/** A failed attempt worth another try, and how long the server asked us to wait. */
interface Retryable {
  readonly failure: EmbeddingFailed;
  readonly waitMs: number | undefined;
}

export class HttpEmbeddingProvider implements EmbeddingProvider {
  readonly model: string;
  readonly dimensions: number | undefined;
  private readonly endpoint: string;
  private readonly limit: ConcurrencyLimit;
  private readonly bucket: TokenBucket | undefined;
  private readonly fetch: typeof fetch;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly backoff: BackoffShape;

  constructor(
    private readonly config: HttpEmbeddingConfig,
    private readonly options: HttpEmbeddingOptions,
  ) {
    this.model = config.model;
    this.dimensions = config.dimensions;
    this.endpoint = `${config.baseUrl.replace(/\/+$/, '')}/embeddings`;
    this.limit = new ConcurrencyLimit(config.concurrency);
    this.clock = options.clock ?? systemClock;
    this.bucket =
      config.requestsPerMinute === undefined
        ? undefined
        : new TokenBucket(config.requestsPerMinute, this.clock);
    this.fetch = options.fetch ?? fetch;
    this.random = options.random ?? Math.random;
    this.backoff = options.backoff ?? DEFAULT_BACKOFF;
  }

  async embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    if (signal?.aborted === true) throw new EmbeddingFailed('aborted');
    if (texts.length === 0) return [];
    const batches: string[][] = [];
    for (let at = 0; at < texts.length; at += this.config.batchSize)
      batches.push(texts.slice(at, at + this.config.batchSize));
    // The first failing batch cancels the others: a partial result is never returned.
    const failFast = new AbortController();
    const shared = signal === undefined ? failFast.signal : AbortSignal.any([signal, failFast.signal]);
    try {
      const results = await Promise.all(
        batches.map((batch) =>
          this.embedBatch(batch, shared, signal).catch((error: unknown) => {
            failFast.abort();
            throw error;
          }),
        ),
      );
      const vectors = results.flat();
      const length = vectors[0]?.length;
      if (vectors.some((v) => v.length !== length))
        throw new EmbeddingFailed('malformed_response', { detail: 'batches of different vector lengths' });
      return vectors;
    } finally {
      failFast.abort();
    }
  }

  private async embedBatch(
    batch: readonly string[],
    signal: AbortSignal,
    callerSignal: AbortSignal | undefined,
  ): Promise<Float32Array[]> {
    try {
      return await this.limit.run(() => this.withRetries(batch, signal), signal);
    } catch (error) {
      if (error instanceof EmbeddingFailed) throw error;
      // An abort of the limit's queue, the bucket's wait or the backoff's sleep: one failure kind,
      // whether the caller gave up or another batch failed first.
      if (callerSignal?.aborted === true || signal.aborted) throw new EmbeddingFailed('aborted');
      throw error;
    }
  }

  private async withRetries(batch: readonly string[], signal: AbortSignal): Promise<Float32Array[]> {
    for (let retry = 0; ; retry += 1) {
      await this.bucket?.take(signal);
      const outcome = await this.attempt(batch, signal);
      if (Array.isArray(outcome)) return outcome;
      const attempts = retry + 1;
      const { failure, waitMs } = outcome;
      if (retry >= this.config.maxRetries || (waitMs !== undefined && waitMs > MAX_RETRY_AFTER_MS))
        throw new EmbeddingFailed(failure.reason, { ...failure.details, attempts });
      await this.clock.sleep(waitMs ?? backoffMs(retry, this.backoff, this.random), signal);
    }
  }

  /** One request: the vectors, a failure worth retrying, or a thrown final failure. */
  private async attempt(batch: readonly string[], signal: AbortSignal): Promise<Float32Array[] | Retryable> {
    const timeout = AbortSignal.timeout(this.config.timeoutMs);
    const attemptSignal = AbortSignal.any([signal, timeout]);
    const failedBy = (error: unknown): Retryable => {
      if (signal.aborted) throw new EmbeddingFailed('aborted');
      if (findReachDenied(error) !== undefined) throw new EmbeddingFailed('not_allowed');
      return {
        failure: new EmbeddingFailed(timeout.aborted ? 'timeout' : 'unreachable'),
        waitMs: undefined,
      };
    };
    const headers = this.headers();
    let response: Response;
    try {
      response = await this.fetch(this.endpoint, {
        method: 'POST',
        headers,
        body: JSON.stringify(this.requestBody(batch)),
        signal: attemptSignal,
      });
    } catch (error) {
      return failedBy(error);
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      const status = response.status;
      if (!isRetryableStatus(status)) throw new EmbeddingFailed('http_error', { status });
      return {
        failure: new EmbeddingFailed(status === 429 ? 'rate_limited' : 'http_error', { status }),
        waitMs: retryAfterMs(response.headers, Date.now()),
      };
    }
    let text: string | undefined;
    try {
      text = await readLimited(response, this.maxResponseBytes(batch.length));
    } catch (error) {
      return failedBy(error);
    }
    if (text === undefined)
      throw new EmbeddingFailed('malformed_response', { detail: 'a response larger than expected' });
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new EmbeddingFailed('malformed_response', { detail: 'a body that is not JSON' });
    }
    return readEmbeddings(body, batch.length, this.dimensions);
  }

  private headers(): Record<string, string> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json',
    };
    if (this.config.apiKey !== undefined) {
      let key: string;
      try {
        key = resolveSecret(this.config.apiKey, this.options.secrets);
      } catch {
        throw new EmbeddingFailed('secret_unavailable');
      }
      headers['authorization'] = `Bearer ${key}`;
    }
    return headers;
  }

  private requestBody(batch: readonly string[]): Record<string, unknown> {
    return {
      model: this.model,
      input: batch,
      encoding_format: 'float',
      ...(this.dimensions === undefined ? {} : { dimensions: this.dimensions }),
    };
  }

  /** Room for the vectors as JSON text (at most ~24 bytes a number) and the envelope. */
  private maxResponseBytes(count: number): number {
    return count * (this.dimensions ?? 8192) * 24 + 1024 * 1024;
  }
}
