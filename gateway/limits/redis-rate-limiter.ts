// The RateLimiter shared by every replica: one Lua script evaluates all rules of a request against
// Redis atomically (GCRA state and per-day counters), on Redis's own clock, and writes only when
// every rule admits — the same decision the memory twin makes, made once for the whole cluster.
// When Redis fails or is slower than `timeoutMs`, the replica decides alone with a per-replica
// share of each limit (limit ÷ replicas last seen, rounded up) and says so in the log; it goes back
// to Redis on the next request that gets an answer. A Redis outage never fails a request.
import type { RedisClient } from '../shared-state/redis-connection.js';
import type { Logger } from '../telemetry/logger.js';
import { ADMITTED, type LimitRule, type LimitVerdict, type RuleUsage } from './limit-rules.js';
import { within } from '../shared-state/within.js';
import { MemoryRateLimiter, type RateLimiter } from './rate-limiter.js';

// KEYS[i]: one counter per rule. ARGV: per rule kind ('rate' | 'quota'), limit, periodMs.
// Returns {admitted (0|1), rule index (1-based), remaining, retryAfterMs, resetMs}.
const SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local day = math.floor(now / 86400000) * 86400000
local dayEnd = day + 86400000
local commits = {}
local best, bestRemaining, bestReset = 0, -1, 0
for i = 1, #KEYS do
  local kind = ARGV[(i - 1) * 3 + 1]
  local limit = tonumber(ARGV[(i - 1) * 3 + 2])
  local period = tonumber(ARGV[(i - 1) * 3 + 3])
  if kind == 'rate' then
    local interval = period / limit
    local tat = tonumber(redis.call('GET', KEYS[i])) or now
    if tat < now then tat = now end
    local nxt = tat + interval
    local allowAt = nxt - period
    if now < allowAt then
      return {0, i, 0, math.ceil(allowAt - now), math.ceil(tat - now)}
    end
    commits[#commits + 1] = {'rate', KEYS[i], nxt, math.ceil(nxt - now)}
    local remaining = math.floor((period - (nxt - now)) / interval)
    if bestRemaining < 0 or remaining < bestRemaining then best, bestRemaining, bestReset = i, remaining, math.ceil(nxt - now) end
  else
    local stored = redis.call('HMGET', KEYS[i], 'day', 'count')
    local count = 0
    if tonumber(stored[1]) == day then count = tonumber(stored[2]) or 0 end
    if count >= limit then
      return {0, i, 0, dayEnd - now, dayEnd - now}
    end
    commits[#commits + 1] = {'quota', KEYS[i], count + 1, dayEnd}
    local remaining = limit - count - 1
    if bestRemaining < 0 or remaining < bestRemaining then best, bestRemaining, bestReset = i, remaining, dayEnd - now end
  end
end
for _, c in ipairs(commits) do
  if c[1] == 'rate' then
    redis.call('SET', c[2], tostring(c[3]), 'PX', c[4])
  else
    redis.call('HSET', c[2], 'day', day, 'count', c[3])
    redis.call('PEXPIREAT', c[2], c[4])
  end
end
return {1, best, bestRemaining, 0, bestReset}
`;

// The same counters read without writing (GET /agent/usage). Returns per rule {used, remaining, resetMs}.
const PEEK_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local day = math.floor(now / 86400000) * 86400000
local out = {}
for i = 1, #KEYS do
  local kind = ARGV[(i - 1) * 3 + 1]
  local limit = tonumber(ARGV[(i - 1) * 3 + 2])
  local period = tonumber(ARGV[(i - 1) * 3 + 3])
  if kind == 'rate' then
    local interval = period / limit
    local backlog = (tonumber(redis.call('GET', KEYS[i])) or now) - now
    if backlog < 0 then backlog = 0 end
    local remaining = math.floor((period - backlog) / interval)
    if remaining < 0 then remaining = 0 end
    if remaining > limit then remaining = limit end
    out[#out + 1] = limit - remaining
    out[#out + 1] = remaining
    out[#out + 1] = math.ceil(backlog)
  else
    local stored = redis.call('HMGET', KEYS[i], 'day', 'count')
    local used = 0
    if tonumber(stored[1]) == day then used = tonumber(stored[2]) or 0 end
    if used > limit then used = limit end
    out[#out + 1] = used
    out[#out + 1] = limit - used
    out[#out + 1] = day + 86400000 - now
  end
end
return out
`;

export interface RedisRateLimiterOptions {
  readonly redis: RedisClient;
  readonly logger: Logger;
  /** Redis answers slower than this count as a failure (fallback). */
  readonly timeoutMs?: number;
  /** How many replicas share the limits (for the fallback share). */
  readonly replicas: () => number;
}

export class RedisRateLimiter implements RateLimiter {
  private readonly local = new MemoryRateLimiter();
  private degraded = false;

  constructor(private readonly options: RedisRateLimiterOptions) {
    options.redis.defineCommand('agwAdmit', { lua: SCRIPT });
    options.redis.defineCommand('agwPeek', { lua: PEEK_SCRIPT, readOnly: true });
  }

  get shared(): boolean {
    return !this.degraded;
  }

  async admit(rules: readonly LimitRule[]): Promise<LimitVerdict> {
    if (rules.length === 0) return ADMITTED;
    try {
      const raw = (await this.script('agwAdmit', rules)) as [number, number, number, number, number];
      if (this.degraded) {
        this.degraded = false;
        this.options.logger.info({}, 'rate limits shared through redis again');
      }
      const [admitted, index, remaining, retryAfterMs, resetMs] = raw;
      return {
        allowed: admitted === 1,
        rule: rules[index - 1],
        remaining,
        retryAfterMs,
        resetMs,
      };
    } catch (error) {
      if (!this.degraded) {
        this.degraded = true;
        this.options.logger.warn(
          { err: (error as Error).name, replicas: this.options.replicas() },
          'redis unavailable: rate limits enforced per replica (limit / replicas) until it returns',
        );
      }
      return this.local.admit(this.replicaShare(rules));
    }
  }

  /** Reads Redis's counters; while Redis is unreachable, this replica's own share (as `admit` uses). */
  async peek(rules: readonly LimitRule[]): Promise<RuleUsage[]> {
    if (rules.length === 0) return [];
    try {
      const raw = (await this.script('agwPeek', rules)) as number[];
      return rules.map((rule, i) => ({
        rule,
        used: raw[i * 3] ?? 0,
        remaining: raw[i * 3 + 1] ?? rule.limit,
        resetMs: raw[i * 3 + 2] ?? 0,
      }));
    } catch {
      return this.local.peek(this.replicaShare(rules));
    }
  }

  /** Runs one of the limiter's scripts on `rules` (keys, then kind, limit and period of each). */
  private script(name: 'agwAdmit' | 'agwPeek', rules: readonly LimitRule[]): Promise<unknown> {
    const args = rules.flatMap((rule) => [rule.kind, String(rule.limit), String(rule.periodMs)]);
    const redis = this.options.redis as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
    // A method call on the client (ioredis defines the scripts as its own commands).
    return within(
      redis[name]!(rules.length, ...rules.map((rule) => rule.key), ...args),
      this.options.timeoutMs ?? 50,
    );
  }

  /** The rules as this replica enforces them alone while Redis is away: limit / replicas. */
  private replicaShare(rules: readonly LimitRule[]): LimitRule[] {
    const share = Math.max(1, this.options.replicas());
    return rules.map((rule) => ({ ...rule, limit: Math.max(1, Math.ceil(rule.limit / share)) }));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
