// The embeddings port of hybrid search (issue 22): texts in, one vector per text out, in order.
// Implementations: the OpenAI-compatible HTTP client, the content-hash cache that wraps any
// provider, and the deterministic hashing twin of the unit tests. A failure is an EmbeddingFailed
// with a closed reason; its message never carries the API key, the endpoint or the texts.

export interface EmbeddingProvider {
  /** One vector per text, in the order given; all of the same length. Treat them as read-only. */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]>;
  readonly model: string;
  /** The configured vector length, or undefined when the model's own length is used. */
  readonly dimensions: number | undefined;
}

export type EmbeddingFailure =
  /** The API key's secret reference did not resolve. */
  | 'secret_unavailable'
  /** The tenant reach policy refused the endpoint. */
  | 'not_allowed'
  | 'timeout'
  | 'unreachable'
  /** Still answered 429 after the retries, or asked to wait longer than we would. */
  | 'rate_limited'
  /** A status that is not retried (4xx), or a 5xx after the retries. */
  | 'http_error'
  /** A response that is not what was asked for: wrong count, indices, lengths or numbers. */
  | 'malformed_response'
  /** The caller's signal aborted the call. */
  | 'aborted';

export class EmbeddingFailed extends Error {
  constructor(
    readonly reason: EmbeddingFailure,
    readonly details: {
      readonly status?: number;
      readonly attempts?: number;
      /** A fixed, content-free description (counts and lengths only). */
      readonly detail?: string;
    } = {},
  ) {
    super(describe(reason, details));
    this.name = 'EmbeddingFailed';
  }

  get status(): number | undefined {
    return this.details.status;
  }
}

function describe(
  reason: EmbeddingFailure,
  details: { status?: number; attempts?: number; detail?: string },
): string {
  const parts = [`embeddings failed: ${reason}`];
  if (details.status !== undefined) parts.push(`HTTP ${details.status}`);
  if (details.detail !== undefined) parts.push(details.detail);
  if (details.attempts !== undefined && details.attempts > 1)
    parts.push(`after ${details.attempts} attempts`);
  return parts.length === 1 ? (parts[0] as string) : `${parts[0]} (${parts.slice(1).join(', ')})`;
}
