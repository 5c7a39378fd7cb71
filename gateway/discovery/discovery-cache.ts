// The DiscoveryCache port (D6): raw upstream lists keyed by source and credential context. The
// memory twin serves the embedded shape; redis-discovery-cache.ts shares entries between replicas.
// `exclusive` lets one caller per key (per replica here, per deployment with Redis) list the
// upstream while the others wait for its result, so a cold key costs one upstream call.
export interface DiscoveryCache<T> {
  get(key: string): Promise<T | undefined>;
  set(key: string, value: T, ttlMs: number): Promise<void>;
  /** Removes every entry whose key starts with the prefix, everywhere the cache is shared. */
  invalidate(prefix: string): Promise<void>;
  /** Forgets this replica's local copies only (after a config swap: keys carry the fingerprint). */
  dropLocal(): void;
  /** Runs `load` unless another caller runs it for `key` right now; then waits (≤ waitMs) for it. */
  exclusive(key: string, waitMs: number, load: () => Promise<void>): Promise<void>;
}

export class MemoryDiscoveryCache<T> implements DiscoveryCache<T> {
  private readonly entries = new Map<string, { value: T; expiresAt: number }>();
  private readonly running = new Map<string, Promise<void>>();

  constructor(private readonly now: () => number = Date.now) {}

  get(key: string): Promise<T | undefined> {
    return Promise.resolve(this.read(key));
  }

  /** Synchronous read for the local layer of the Redis cache. */
  read(key: string): T | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: T, ttlMs: number): Promise<void> {
    if (ttlMs > 0) this.entries.set(key, { value, expiresAt: this.now() + ttlMs });
    return Promise.resolve();
  }

  invalidate(prefix: string): Promise<void> {
    for (const key of this.entries.keys()) if (key.startsWith(prefix)) this.entries.delete(key);
    return Promise.resolve();
  }

  dropLocal(): void {
    this.entries.clear();
  }

  async exclusive(key: string, _waitMs: number, load: () => Promise<void>): Promise<void> {
    const current = this.running.get(key);
    if (current !== undefined) {
      await current.catch(() => undefined);
      return;
    }
    const run = load().finally(() => this.running.delete(key));
    this.running.set(key, run);
    await run;
  }
}
