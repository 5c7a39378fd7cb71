// How many gateway replicas share this Redis (for the per-replica share of a limit while Redis is
// unreachable): each replica refreshes its own entry every few seconds in one sorted set, entries
// older than three periods are dropped, and the last count read is kept for when Redis is gone.
// The set itself expires three periods after the last beat, so a deployment removed leaves nothing.
import { randomBytes } from 'node:crypto';
import type { RedisClient } from './redis-connection.js';

export class ReplicaRegistry {
  /** This replica's id (also the owner named in its bridged calls' states). */
  readonly id = randomBytes(8).toString('hex');
  private count = 1;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly redis: RedisClient,
    private readonly key: string,
    private readonly periodMs = 5000,
  ) {}

  start(): void {
    void this.beat();
    this.timer = setInterval(() => void this.beat(), this.periodMs);
    this.timer.unref();
  }

  /** Replicas seen recently (at least 1). */
  replicas(): number {
    return this.count;
  }

  async stop(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    await this.redis.zrem(this.key, this.id).catch(() => undefined);
  }

  private async beat(): Promise<void> {
    const now = Date.now();
    try {
      const [, , [, count]] = (await this.redis
        .multi()
        .zadd(this.key, now, this.id)
        .zremrangebyscore(this.key, '-inf', now - this.periodMs * 3)
        .zcard(this.key)
        .pexpire(this.key, this.periodMs * 3)
        .exec()) as [unknown, unknown, [unknown, number], unknown];
      this.count = Math.max(1, Number(count));
    } catch {
      // Keep the last count: it is what the fallback share is computed from.
    }
  }
}
