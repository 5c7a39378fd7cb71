// How many introspection calls an issuer gets from this replica (issue 37): at most `perSecond` new
// calls a second (a token bucket holding one second's worth, full at first) and at most
// `maxConcurrent` in flight. Past either the token is not sent; the caller is answered 503 with
// Retry-After (`introspection-busy`), as for an authorization server that does not answer. Keyed by
// issuer URL, not by declaration, so two workspaces declaring one issuer share its budget.

export interface GateLimits {
  readonly perSecond: number;
  readonly maxConcurrent: number;
}

interface IssuerBudget {
  inFlight: number;
  tokens: number;
  /** When `tokens` was last refilled (ms, monotonic). */
  at: number;
}

/** Issuers are config-bounded; this only keeps a long run of reloads from growing the map. */
const MAX_ISSUERS = 1024;

export class IntrospectionGate {
  private readonly budgets = new Map<string, IssuerBudget>();

  /** A release function when a call may start now, else undefined. */
  tryEnter(issuer: string, nowMs: number, limits: GateLimits): (() => void) | undefined {
    let budget = this.budgets.get(issuer);
    if (budget === undefined) {
      if (this.budgets.size >= MAX_ISSUERS) this.dropIdle();
      budget = { inFlight: 0, tokens: limits.perSecond, at: nowMs };
      this.budgets.set(issuer, budget);
    }
    const elapsed = Math.max(0, nowMs - budget.at);
    budget.tokens = Math.min(limits.perSecond, budget.tokens + (elapsed / 1000) * limits.perSecond);
    budget.at = nowMs;
    if (budget.inFlight >= limits.maxConcurrent || budget.tokens < 1) return undefined;
    budget.tokens -= 1;
    budget.inFlight += 1;
    let released = false;
    const entry = budget;
    return () => {
      if (released) return;
      released = true;
      entry.inFlight -= 1;
    };
  }

  /** Calls in flight to `issuer` (tests, metrics). */
  inFlight(issuer: string): number {
    return this.budgets.get(issuer)?.inFlight ?? 0;
  }

  private dropIdle(): void {
    for (const [issuer, budget] of this.budgets) if (budget.inFlight === 0) this.budgets.delete(issuer);
  }
}
