// The per-source sync lock port: at most one sync of a source at a time across every gateway
// process sharing the index. The memory twin serves one process (the embedded shape); the shared
// PostgreSQL store provides an advisory-lock implementation.
export interface SourceLock {
  /** Runs `task` holding the lock, or returns undefined at once when someone else holds it. */
  tryWith<T>(key: string, task: () => Promise<T>): Promise<T | undefined>;
}

export class MemorySourceLock implements SourceLock {
  private readonly held = new Set<string>();

  async tryWith<T>(key: string, task: () => Promise<T>): Promise<T | undefined> {
    if (this.held.has(key)) return undefined;
    this.held.add(key);
    try {
      return await task();
    } finally {
      this.held.delete(key);
    }
  }
}
