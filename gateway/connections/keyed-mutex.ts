// One holder per key in this process, the rest queued in arrival order, each waiting no longer than
// its own bound (issue 42: one refresh of a connection in flight). The memory and SQLite connection
// stores use it alone; the PostgreSQL store takes it before its advisory lock, so a replica's own
// callers queue here instead of each holding a database session while they wait.

/** `exclusive` waited its bound and the key was still held. Names no key: a key names a user. */
export class ConnectionLockTimeout extends Error {
  constructor(readonly waitMs: number) {
    super(`the connection was busy for ${waitMs} ms (another refresh held it)`);
    this.name = 'ConnectionLockTimeout';
  }
}

/** Resolves when `turn` does, or rejects with ConnectionLockTimeout once `waitMs` has passed. */
export function waitTurn(turn: Promise<void>, waitMs: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new ConnectionLockTimeout(waitMs)), Math.max(0, waitMs));
    void turn.then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

export class KeyedMutex {
  /** Per held key: settles when the last queued holder is done (or gave up waiting). */
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(key: string, waitMs: number, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key);
    let done!: () => void;
    const mine = new Promise<void>((resolve) => (done = resolve));
    // A waiter that times out still keeps its place behind `previous`, so whoever queued after it
    // waits for the real holder, never for a waiter that left.
    const tail = previous === undefined ? mine : previous.then(() => mine);
    this.tails.set(key, tail);
    try {
      if (previous !== undefined) await waitTurn(previous, waitMs);
      return await task();
    } finally {
      done();
      // Forgotten only once everyone before is done too: a waiter leaving early must not free a
      // key its predecessor still holds.
      void tail.then(() => {
        if (this.tails.get(key) === tail) this.tails.delete(key);
      });
    }
  }

  /** Keys held or waited for (a bounded map: entries go when their queue empties). */
  get size(): number {
    return this.tails.size;
  }
}

/** One string per connection key, unambiguous whatever its parts contain. */
export function keyName(key: { workspace: string; principal: string; source: string }): string {
  return JSON.stringify([key.workspace, key.principal, key.source]);
}
