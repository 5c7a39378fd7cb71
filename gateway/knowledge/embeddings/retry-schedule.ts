// When an embeddings request is tried again (issue 22): 429, 5xx, timeouts and unreachable servers
// are retried with exponential backoff and jitter; a server's Retry-After (or Azure/OpenAI's
// retry-after-ms) is honoured as given, up to a ceiling past which waiting is worse than failing.

/** The longest server-requested wait we honour; a longer one fails the call at once. */
export const MAX_RETRY_AFTER_MS = 60_000;

export interface BackoffShape {
  /** The wait before the first retry, before jitter. */
  readonly baseMs: number;
  /** The ceiling of any one wait, before jitter. */
  readonly maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffShape = { baseMs: 500, maxMs: 20_000 };

export function isRetryableStatus(status: number): boolean {
  return status === 429 || (status >= 500 && status <= 599);
}

/** The wait before retry `retry` (0 for the first): base·2^retry capped, with half of it jittered so
 * that callers that failed together do not come back together. */
export function backoffMs(retry: number, shape: BackoffShape, random: () => number): number {
  const full = Math.min(shape.maxMs, shape.baseMs * 2 ** retry);
  return full / 2 + random() * (full / 2);
}

/** The wait a response asks for, in ms: `retry-after-ms`, else `Retry-After` as seconds or an HTTP
 * date; undefined when absent or unreadable. */
export function retryAfterMs(headers: Headers, now: number): number | undefined {
  const precise = headers.get('retry-after-ms');
  if (precise !== null && /^\d+(\.\d+)?$/.test(precise.trim())) return Number(precise);
  const value = headers.get('retry-after')?.trim();
  if (value === undefined || value === '') return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
