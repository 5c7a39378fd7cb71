// The DiscoveryCache shared by every replica (issue 10): upstream lists live in Redis with the
// upstream's own lifetime, with this replica's copy in front (L1, same expiry). An invalidation
// (refresh, list_changed) deletes the shared entries and is published, so every replica drops its
// copy at once. `exclusive` takes a short Redis lock per key: of N replicas asking for a cold key,
// one lists the upstream and the others wait for its entry. When Redis is unavailable every call
// degrades to the local copy and a local lister; nothing fails because of Redis.
import { masters, type RedisClient } from '../shared-state/redis-connection.js';
import type { Logger } from '../telemetry/logger.js';
import { RedisLock } from '../shared-state/redis-lock.js';
import { within } from '../shared-state/within.js';
import { MemoryDiscoveryCache, type DiscoveryCache } from './discovery-cache.js';

export interface RedisDiscoveryCacheOptions {
  readonly redis: RedisClient;
  /** A second connection for pub/sub (a subscribed connection cannot send other commands). */
  readonly subscriber: RedisClient;
  readonly keyPrefix: string;
  readonly timeoutMs: number;
  readonly logger: Logger;
}

export class RedisDiscoveryCache<T> implements DiscoveryCache<T> {
  private readonly local = new MemoryDiscoveryCache<T>();
  private readonly channel: string;
  private readonly lock: RedisLock;

  constructor(private readonly options: RedisDiscoveryCacheOptions) {
    this.channel = `${options.keyPrefix}discovery-invalidate`;
    this.lock = new RedisLock(options.redis, options.timeoutMs);
    const subscribe = () => void options.subscriber.subscribe(this.channel).catch(() => undefined);
    options.subscriber.on('ready', subscribe);
    if (options.subscriber.status === 'ready') subscribe();
    options.subscriber.on('message', (channel: string, prefix: string) => {
      if (channel === this.channel) void this.local.invalidate(prefix);
    });
  }

  private entryKey(key: string): string {
    return `${this.options.keyPrefix}discovery:${key}`;
  }

  async get(key: string): Promise<T | undefined> {
    const local = this.local.read(key);
    if (local !== undefined) return local;
    try {
      const result = await this.timed(
        this.options.redis.multi().get(this.entryKey(key)).pttl(this.entryKey(key)).exec(),
      );
      const [[, raw], [, ttl]] = (result ?? [
        [null, null],
        [null, -2],
      ]) as [[unknown, string | null], [unknown, number]];
      if (raw === null || typeof ttl !== 'number' || ttl <= 0) return undefined;
      const value = JSON.parse(raw) as T;
      await this.local.set(key, value, ttl);
      return value;
    } catch {
      return undefined;
    }
  }

  async set(key: string, value: T, ttlMs: number): Promise<void> {
    await this.local.set(key, value, ttlMs);
    if (ttlMs <= 0) return;
    await this.timed(this.options.redis.set(this.entryKey(key), JSON.stringify(value), 'PX', ttlMs)).catch(
      () => undefined,
    );
  }

  async invalidate(prefix: string): Promise<void> {
    await this.local.invalidate(prefix);
    try {
      const pattern = `${this.entryKey(prefix).replace(/[*?[\]\\]/g, '\\$&')}*`;
      // SCAN sees one node's keys: every master of a Cluster is scanned. Keys are deleted one by
      // one (a multi-key DEL must stay within one Cluster slot).
      for (const node of masters(this.options.redis)) {
        let cursor = '0';
        do {
          const [next, keys] = await this.timed(node.scan(cursor, 'MATCH', pattern, 'COUNT', 200));
          await this.timed(Promise.all(keys.map((key) => this.options.redis.del(key))));
          cursor = next;
        } while (cursor !== '0');
      }
      await this.timed(this.options.redis.publish(this.channel, prefix));
    } catch (error) {
      this.options.logger.warn(
        { err: (error as Error).name },
        'shared discovery cache not invalidated (redis unavailable)',
      );
    }
  }

  dropLocal(): void {
    this.local.dropLocal();
  }

  exclusive(key: string, waitMs: number, load: () => Promise<void>): Promise<void> {
    // First one caller per replica, then one replica per deployment.
    return this.local.exclusive(key, waitMs, async () => {
      const lock = `${this.options.keyPrefix}discovery-lock:${key}`;
      if (!(await this.lock.acquire(lock, waitMs + 1000))) {
        await this.lock.waitWhileHeld(lock, waitMs, async () => (await this.get(key)) !== undefined);
        return;
      }
      try {
        await load();
      } finally {
        await this.lock.release(lock);
      }
    });
  }

  private timed<R>(promise: Promise<R>): Promise<R> {
    return within(promise, this.options.timeoutMs);
  }
}
