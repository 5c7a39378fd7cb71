// A short Redis lock so one replica at a time does a piece of work (list an upstream, open an
// upstream session). Redis unavailable counts as "acquired": the work then runs locally, which is
// the behaviour without Redis. Released only by its owner; it expires by itself if the owner dies.
import { randomBytes } from 'node:crypto';
import type { RedisClient } from './redis-connection.js';
import { within } from './within.js';

const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

export class RedisLock {
  private readonly owner = randomBytes(8).toString('hex');

  constructor(
    private readonly redis: RedisClient,
    private readonly timeoutMs: number,
  ) {}

  async acquire(lock: string, ttlMs: number): Promise<boolean> {
    try {
      return (await within(this.redis.set(lock, this.owner, 'PX', ttlMs, 'NX'), this.timeoutMs)) === 'OK';
    } catch {
      return true;
    }
  }

  async release(lock: string): Promise<void> {
    await within(this.redis.eval(RELEASE, 1, lock, this.owner), this.timeoutMs).catch(() => undefined);
  }

  /** Waits until the lock is gone, `done()` says the wait is over, or `waitMs` passes. */
  async waitWhileHeld(
    lock: string,
    waitMs: number,
    done: () => Promise<boolean> = () => Promise.resolve(false),
  ): Promise<void> {
    const deadline = Date.now() + waitMs;
    while (Date.now() < deadline) {
      if (await done()) return;
      const held = await within(this.redis.exists(lock), this.timeoutMs).catch(() => 0);
      if (held === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}
