// The DiscoveryCache port (D6): raw upstream lists keyed by source and credential context. The
// memory twin serves the embedded shape; a Redis implementation arrives with the cluster shape.
export interface DiscoveryCache<T> {
  get(key: string): T | undefined;
  set(key: string, value: T, ttlMs: number): void;
  /** Removes every entry whose key starts with the prefix. */
  invalidate(prefix: string): void;
}

export class MemoryDiscoveryCache<T> implements DiscoveryCache<T> {
  private readonly entries = new Map<string, { value: T; expiresAt: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  get(key: string): T | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: T, ttlMs: number): void {
    if (ttlMs <= 0) return;
    this.entries.set(key, { value, expiresAt: this.now() + ttlMs });
  }

  invalidate(prefix: string): void {
    for (const key of this.entries.keys()) if (key.startsWith(prefix)) this.entries.delete(key);
  }
}
