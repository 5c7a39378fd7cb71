// The in-memory ConnectionRows (issue 42): the twin unit tests use, and the store of a gateway that
// keeps connections for its own lifetime only. Maps per concern; `exclusive` is the in-process
// KeyedMutex; consumed ids are swept when they expire.
import type {
  ConnectionKey,
  ConnectionRow,
  ConnectionRows,
  ConnectionSummary,
  RevokeFilter,
} from './connection-rows.js';
import { keyName, KeyedMutex } from './keyed-mutex.js';
import { ConsumedIds, type ConnectionRowsOptions } from './consumed-ids.js';

export class MemoryConnectionRows implements ConnectionRows {
  private readonly rows = new Map<string, ConnectionRow>();
  private readonly values = new Map<string, string>();
  private readonly mutex = new KeyedMutex();
  private readonly consumed: ConsumedIds;

  constructor(options: ConnectionRowsOptions = {}) {
    this.consumed = new ConsumedIds(options.now ?? Date.now);
  }

  get(key: ConnectionKey): Promise<ConnectionRow | undefined> {
    return Promise.resolve(this.rows.get(keyName(key)));
  }

  put(key: ConnectionKey, row: ConnectionRow): Promise<void> {
    // The summary is stored under the key it was put with, whatever its own fields say.
    this.rows.set(keyName(key), { sealed: row.sealed, summary: { ...row.summary, ...pick(key) } });
    return Promise.resolve();
  }

  exclusive<T>(key: ConnectionKey, waitMs: number, task: () => Promise<T>): Promise<T> {
    return this.mutex.run(keyName(key), waitMs, task);
  }

  list(workspace: string, principal: string): Promise<ConnectionSummary[]> {
    const found = [...this.rows.values()]
      .map((row) => row.summary)
      .filter((summary) => summary.workspace === workspace && summary.principal === principal)
      .sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : 0));
    return Promise.resolve(found);
  }

  remove(filter: RevokeFilter): Promise<number> {
    let removed = 0;
    for (const [name, row] of this.rows)
      if (matches(row.summary, filter)) {
        this.rows.delete(name);
        removed += 1;
      }
    return Promise.resolve(removed);
  }

  consumeOnce(id: string, expiresAtMs: number): Promise<boolean> {
    return Promise.resolve(this.consumed.consume(id, expiresAtMs));
  }

  getValue(name: string): Promise<string | undefined> {
    return Promise.resolve(this.values.get(name));
  }

  putValue(name: string, sealed: string): Promise<void> {
    this.values.set(name, sealed);
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

function pick(key: ConnectionKey): ConnectionKey {
  return { workspace: key.workspace, principal: key.principal, source: key.source };
}

function matches(summary: ConnectionSummary, filter: RevokeFilter): boolean {
  return (
    summary.workspace === filter.workspace &&
    (filter.principal === undefined || summary.principal === filter.principal) &&
    (filter.source === undefined || summary.source === filter.source)
  );
}
