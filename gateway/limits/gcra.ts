// The generic cell rate algorithm, on one stored number per counter: the theoretical arrival time
// (TAT) of the next request. A rule of `limit` per `periodMs` emits one cell every periodMs/limit
// and tolerates a burst of `limit`. Chosen over fixed or sliding windows because it is exact, needs
// a single value per counter (one Redis key, updated atomically by one script), refuses without
// changing state, and has no double burst at a window edge. The Lua twin is in redis-rate-limiter.ts.

export interface GcraStep {
  readonly allowed: boolean;
  /** The TAT to store when allowed (unchanged state when refused). */
  readonly tat: number;
  readonly remaining: number;
  readonly retryAfterMs: number;
  readonly resetMs: number;
}

export function gcra(storedTat: number | undefined, now: number, limit: number, periodMs: number): GcraStep {
  const interval = periodMs / limit;
  const tat = Math.max(storedTat ?? now, now);
  const next = tat + interval;
  const allowAt = next - periodMs;
  if (now < allowAt) {
    return {
      allowed: false,
      tat,
      remaining: 0,
      retryAfterMs: Math.ceil(allowAt - now),
      resetMs: Math.ceil(tat - now),
    };
  }
  return {
    allowed: true,
    tat: next,
    remaining: Math.max(0, Math.floor((periodMs - (next - now)) / interval)),
    retryAfterMs: 0,
    resetMs: Math.ceil(next - now),
  };
}

/** The state of a counter without a request: how much of the burst is spent and when it is full
 * again. `remaining` is what `gcra` would still admit back to back from `now`. */
export function gcraPeek(
  storedTat: number | undefined,
  now: number,
  limit: number,
  periodMs: number,
): { used: number; remaining: number; resetMs: number } {
  const interval = periodMs / limit;
  const backlog = Math.max(0, (storedTat ?? now) - now);
  const remaining = Math.max(0, Math.min(limit, Math.floor((periodMs - backlog) / interval)));
  return { used: limit - remaining, remaining, resetMs: Math.ceil(backlog) };
}
