// What a request is counted against (spec §7, issue 10): per key and per workspace, a request rate
// per second and per minute (GCRA: at most `limit` per `periodMs`, smoothly, no burst at window
// edges) and daily quotas of tool calls and of searches/queries (a counter per UTC day). A request
// is admitted only if every rule admits it, and only an admitted request is counted, so retrying
// after a refusal never uses up quota.

export type RuleKind = 'rate' | 'quota';

export interface LimitRule {
  /** Storage key of this counter (already scoped: workspace or key, rule name). */
  readonly key: string;
  /** Shown in RateLimit-Policy, e.g. `key-minute`. */
  readonly policy: string;
  readonly kind: RuleKind;
  readonly limit: number;
  readonly periodMs: number;
}

export interface LimitVerdict {
  readonly allowed: boolean;
  /** The rule that refused (or, when admitted, the one closest to refusing). */
  readonly rule: LimitRule | undefined;
  readonly remaining: number;
  /** When the refused request could succeed; 0 when admitted. */
  readonly retryAfterMs: number;
  /** Until the rule's counter is back to full. */
  readonly resetMs: number;
}

/** One rule's counter as it stands, read without counting anything (`RateLimiter.peek`). */
export interface RuleUsage {
  readonly rule: LimitRule;
  /** Requests the counter holds now: for a rate, the burst already spent (GCRA); for a quota, today's count. */
  readonly used: number;
  readonly remaining: number;
  /** Until the counter is back to full (rate; 0 when nothing is spent) or the UTC day ends (quota). */
  readonly resetMs: number;
}

export const ADMITTED: LimitVerdict = {
  allowed: true,
  rule: undefined,
  remaining: Number.POSITIVE_INFINITY,
  retryAfterMs: 0,
  resetMs: 0,
};

export const DAY_MS = 86_400_000;

/** Start of the UTC day `now` falls in. */
export function dayStart(now: number): number {
  return Math.floor(now / DAY_MS) * DAY_MS;
}
