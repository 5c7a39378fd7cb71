// The RateLimiter port (D6) and its in-memory twin (embedded shape, unit tests, and the per-replica
// fallback while Redis is unreachable). `admit` checks every rule and counts the request against
// all of them only when every one admits it. `peek` reads the counters without counting (GET
// /agent/usage, issue 25).
import { gcra, gcraPeek } from './gcra.js';
import {
  ADMITTED,
  dayStart,
  DAY_MS,
  type LimitRule,
  type LimitVerdict,
  type RuleUsage,
} from './limit-rules.js';

export interface RateLimiter {
  admit(rules: readonly LimitRule[]): Promise<LimitVerdict>;
  /** Each rule's counter as it stands now, in the order given; changes nothing. */
  peek(rules: readonly LimitRule[]): Promise<RuleUsage[]>;
  /** Whether decisions are shared with the other replicas right now. */
  readonly shared: boolean;
  close(): Promise<void>;
}

interface Evaluated {
  readonly rule: LimitRule;
  readonly allowed: boolean;
  readonly remaining: number;
  readonly retryAfterMs: number;
  readonly resetMs: number;
  readonly commit: () => void;
}

/** How often the in-memory counters drop what no longer counts (issue 26). */
const SWEEP_EVERY_MS = 60_000;

export class MemoryRateLimiter implements RateLimiter {
  readonly shared = false;
  private readonly tats = new Map<string, number>();
  private readonly counts = new Map<string, { day: number; count: number }>();
  private nextSweep = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** Counters kept (for the bound test). */
  get size(): number {
    return this.tats.size + this.counts.size;
  }

  admit(rules: readonly LimitRule[]): Promise<LimitVerdict> {
    if (rules.length === 0) return Promise.resolve(ADMITTED);
    const now = this.now();
    if (now >= this.nextSweep) this.sweep(now);
    const evaluated = rules.map((rule) =>
      rule.kind === 'rate' ? this.rate(rule, now) : this.quota(rule, now),
    );
    return Promise.resolve(decide(evaluated));
  }

  peek(rules: readonly LimitRule[]): Promise<RuleUsage[]> {
    const now = this.now();
    return Promise.resolve(
      rules.map((rule) => {
        if (rule.kind === 'rate')
          return { rule, ...gcraPeek(this.tats.get(rule.key), now, rule.limit, rule.periodMs) };
        const day = dayStart(now);
        const stored = this.counts.get(rule.key);
        const used = Math.min(rule.limit, stored !== undefined && stored.day === day ? stored.count : 0);
        return { rule, used, remaining: rule.limit - used, resetMs: day + DAY_MS - now };
      }),
    );
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  /** A TAT in the past counts as no TAT, and a quota of an earlier day as none: both are dropped,
   * so keys and identities that stopped calling (OAuth subjects are unbounded) leave nothing behind. */
  private sweep(now: number): void {
    this.nextSweep = now + SWEEP_EVERY_MS;
    for (const [key, tat] of this.tats) if (tat <= now) this.tats.delete(key);
    const today = dayStart(now);
    for (const [key, stored] of this.counts) if (stored.day < today) this.counts.delete(key);
  }

  private rate(rule: LimitRule, now: number): Evaluated {
    const step = gcra(this.tats.get(rule.key), now, rule.limit, rule.periodMs);
    return { rule, ...step, commit: () => this.tats.set(rule.key, step.tat) };
  }

  private quota(rule: LimitRule, now: number): Evaluated {
    const day = dayStart(now);
    const stored = this.counts.get(rule.key);
    const count = stored !== undefined && stored.day === day ? stored.count : 0;
    const resetMs = day + DAY_MS - now;
    const allowed = count < rule.limit;
    return {
      rule,
      allowed,
      remaining: allowed ? rule.limit - count - 1 : 0,
      retryAfterMs: allowed ? 0 : resetMs,
      resetMs,
      commit: () => this.counts.set(rule.key, { day, count: count + 1 }),
    };
  }
}

/** All-or-nothing: the first refusing rule answers; otherwise every rule counts the request. */
export function decide(evaluated: readonly Evaluated[]): LimitVerdict {
  const refused = evaluated.filter((e) => !e.allowed).sort((a, b) => b.retryAfterMs - a.retryAfterMs)[0];
  if (refused !== undefined)
    return {
      allowed: false,
      rule: refused.rule,
      remaining: 0,
      retryAfterMs: refused.retryAfterMs,
      resetMs: refused.resetMs,
    };
  for (const e of evaluated) e.commit();
  const tightest = [...evaluated].sort((a, b) => a.remaining - b.remaining)[0];
  return tightest === undefined
    ? ADMITTED
    : {
        allowed: true,
        rule: tightest.rule,
        remaining: tightest.remaining,
        retryAfterMs: 0,
        resetMs: tightest.resetMs,
      };
}
