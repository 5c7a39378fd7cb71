// The DiscoveryCache shared by every replica (issue 10): upstream lists live in Redis with the
// upstream's own lifetime, with this replica's copy in front (L1, same expiry). An invalidation
// (refresh, list_changed) deletes the shared entries and is published, so every replica drops its
// copy at once. `exclusive` takes a short Redis lock per key: of N replicas asking for a cold key,
// one lists the upstream and the others wait for its entry. When Redis is unavailable every call
// degrades to the local copy and a local lister; nothing fails because of Redis. An invalidation that
// Redis could not take is not lost (issue 28.11): it is queued (bounded; past the bound, everything is
// invalidated) and retried with backoff until Redis takes it, and a replica whose subscription was
// down drops its whole local copy when it comes back, since it may have missed messages meanwhile.
// Redis sees no key material (issue 28.8): an entry's name is digests of its key's scopes and of the
// key (`discovery:<d(ws/)>:<d(ws/source/)>:<d(key)>`, so a prefix still selects by SCAN), and the
// list itself and every invalidation message are encrypted.
import { keyDigest } from '../shared-state/key-digest.js';
import { masters, type RedisClient } from '../shared-state/redis-connection.js';
import type { Logger } from '../telemetry/logger.js';
import { RedisLock } from '../shared-state/redis-lock.js';
import type { ValueCipher } from '../shared-state/value-cipher.js';
import { within } from '../shared-state/within.js';
import { MemoryDiscoveryCache, type DiscoveryCache } from './discovery-cache.js';

export interface RedisDiscoveryCacheOptions {
  readonly redis: RedisClient;
  /** A second connection for pub/sub (a subscribed connection cannot send other commands). */
  readonly subscriber: RedisClient;
  readonly keyPrefix: string;
  readonly timeoutMs: number;
  readonly logger: Logger;
  /** Encrypts entries and invalidation messages (the shared-state encryption keys). */
  readonly cipher: ValueCipher;
}

/** Invalidations waiting for Redis; past this many distinct prefixes, everything is invalidated. */
const MAX_PENDING = 256;
const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 5000;
/** Keys are `<workspace>/<source>/<rest>`: their scopes end at the first two slashes. */
const SCOPES = 2;

/** The prefixes of `text` that end at one of its first SCOPES slashes. */
function scopesOf(text: string): string[] {
  const scopes: string[] = [];
  let slash = -1;
  while (scopes.length < SCOPES) {
    slash = text.indexOf('/', slash + 1);
    if (slash < 0) break;
    scopes.push(text.slice(0, slash + 1));
  }
  return scopes;
}

export class RedisDiscoveryCache<T> implements DiscoveryCache<T> {
  private readonly local = new MemoryDiscoveryCache<T>();
  private readonly channel: string;
  private readonly lock: RedisLock;
  private readonly pending = new Set<string>();
  private retryTimer: NodeJS.Timeout | undefined;
  private retryDelayMs = RETRY_FIRST_MS;
  private closed = false;

  constructor(private readonly options: RedisDiscoveryCacheOptions) {
    this.channel = `${options.keyPrefix}discovery-invalidate`;
    this.lock = new RedisLock(options.redis, options.timeoutMs);
    let subscribedBefore = false;
    const subscribe = () => {
      // Messages published while this subscription was down are lost: start from Redis again.
      if (subscribedBefore) this.local.dropLocal();
      subscribedBefore = true;
      void options.subscriber.subscribe(this.channel).catch(() => undefined);
    };
    options.subscriber.on('ready', subscribe);
    if (options.subscriber.status === 'ready') subscribe();
    options.subscriber.on('message', (channel: string, sealed: string) => {
      if (channel !== this.channel) return;
      const prefix = options.cipher.decrypt(sealed, channel)?.plain;
      if (prefix !== undefined) void this.local.invalidate(prefix);
    });
  }

  private entryKey(key: string): string {
    return `${this.options.keyPrefix}discovery:${[...scopesOf(key), key].map(keyDigest).join(':')}`;
  }

  /** Every entry whose key starts with `prefix`, and maybe more: a prefix that does not end at a
   * scope selects by its last whole scope (a miss later, never a stale list). */
  private entryPattern(prefix: string): string {
    return `${this.options.keyPrefix}discovery:${scopesOf(prefix)
      .map((scope) => `${keyDigest(scope)}:`)
      .join('')}*`;
  }

  async get(key: string): Promise<T | undefined> {
    const local = this.local.read(key);
    if (local !== undefined) return local;
    const name = this.entryKey(key);
    try {
      const result = await this.timed(this.options.redis.multi().get(name).pttl(name).exec());
      const [[, raw], [, ttl]] = (result ?? [
        [null, null],
        [null, -2],
      ]) as [[unknown, string | null], [unknown, number]];
      if (raw === null || typeof ttl !== 'number' || ttl <= 0) return undefined;
      // An entry no configured key opens (written under a dropped key) is a miss, listed again.
      const opened = this.options.cipher.decrypt(raw, name);
      if (opened === undefined) return undefined;
      const value = JSON.parse(opened.plain) as T;
      await this.local.set(key, value, ttl);
      return value;
    } catch {
      return undefined;
    }
  }

  async set(key: string, value: T, ttlMs: number): Promise<void> {
    await this.local.set(key, value, ttlMs);
    if (ttlMs <= 0) return;
    const name = this.entryKey(key);
    const sealed = this.options.cipher.encrypt(JSON.stringify(value), name);
    await this.timed(this.options.redis.set(name, sealed, 'PX', ttlMs)).catch(() => undefined);
  }

  async invalidate(prefix: string): Promise<void> {
    await this.local.invalidate(prefix);
    try {
      await this.invalidateShared(prefix, this.options.timeoutMs);
    } catch (error) {
      this.queue(prefix);
      this.options.logger.warn(
        { err: (error as Error).name, pending: this.pending.size },
        'shared discovery cache not invalidated yet (redis unavailable); retrying',
      );
    }
  }

  /** Invalidations still waiting for Redis (tests, and /agent/sources could show it). */
  get pendingInvalidations(): number {
    return this.pending.size;
  }

  /** Stops retrying (shutdown). */
  close(): void {
    this.closed = true;
    if (this.retryTimer !== undefined) clearTimeout(this.retryTimer);
  }

  private async invalidateShared(prefix: string, timeoutMs: number): Promise<void> {
    // Digests hold no glob characters, and the key prefix is checked by the config schema.
    const pattern = this.entryPattern(prefix);
    const timed = <R>(promise: Promise<R>) => within(promise, timeoutMs);
    // SCAN sees one node's keys: every master of a Cluster is scanned. Keys are deleted one by
    // one (a multi-key DEL must stay within one Cluster slot).
    for (const node of masters(this.options.redis)) {
      let cursor = '0';
      do {
        const [next, keys] = await timed(node.scan(cursor, 'MATCH', pattern, 'COUNT', 200));
        await timed(Promise.all(keys.map((key) => this.options.redis.del(key))));
        cursor = next;
      } while (cursor !== '0');
    }
    await timed(this.options.redis.publish(this.channel, this.options.cipher.encrypt(prefix, this.channel)));
  }

  private queue(prefix: string): void {
    if (this.pending.has('')) return;
    this.pending.add(prefix);
    // Bounded: past the limit one invalidation of everything replaces them all (a miss, never stale).
    if (this.pending.size > MAX_PENDING) {
      this.pending.clear();
      this.pending.add('');
    }
    this.scheduleRetry();
  }

  private scheduleRetry(): void {
    if (this.retryTimer !== undefined || this.closed || this.pending.size === 0) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.retryPending();
    }, this.retryDelayMs);
    this.retryTimer.unref();
  }

  private async retryPending(): Promise<void> {
    // Off the request path: a retry may wait longer than a request's command timeout.
    const timeoutMs = Math.max(this.options.timeoutMs * 10, 1000);
    for (const prefix of [...this.pending]) {
      try {
        await this.invalidateShared(prefix, timeoutMs);
        this.pending.delete(prefix);
      } catch {
        this.retryDelayMs = Math.min(this.retryDelayMs * 2, RETRY_MAX_MS);
        this.scheduleRetry();
        return;
      }
    }
    this.retryDelayMs = RETRY_FIRST_MS;
    if (this.pending.size === 0)
      this.options.logger.info({}, 'shared discovery cache invalidations delivered after a redis outage');
    this.scheduleRetry();
  }

  dropLocal(): void {
    this.local.dropLocal();
  }

  exclusive(key: string, waitMs: number, load: () => Promise<void>): Promise<void> {
    // First one caller per replica, then one replica per deployment.
    return this.local.exclusive(key, waitMs, async () => {
      const lock = `${this.options.keyPrefix}discovery-lock:${keyDigest(key)}`;
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
