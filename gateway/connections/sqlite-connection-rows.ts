// The embedded ConnectionRows (issue 42): one SQLite file through `node:sqlite`, tables created when
// missing, WAL, so connections survive a restart. One process owns the file, so `exclusive` is the
// in-process KeyedMutex. Tokens arrive sealed; the file is created readable by its owner only.
import { closeSync, openSync } from 'node:fs';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import type {
  ConnectionKey,
  ConnectionRow,
  ConnectionRows,
  ConnectionSummary,
  RevokeFilter,
} from './connection-rows.js';
import { alreadyExpired, type ConnectionRowsOptions } from './consumed-ids.js';
import { keyName, KeyedMutex } from './keyed-mutex.js';
import {
  connectionTables,
  PUT_CONFLICT,
  putValues,
  rowFrom,
  SUMMARY_COLUMNS as COLUMNS,
  summaryFrom,
  type StoredRow,
} from './connection-tables.js';

const SCHEMA = `
PRAGMA journal_mode = WAL;
PRAGMA synchronous = NORMAL;
PRAGMA busy_timeout = 5000;
${connectionTables({ text: 'TEXT', millis: 'INTEGER' })}`;

function prepare(db: DatabaseSync) {
  return {
    get: db.prepare(
      `SELECT ${COLUMNS}, sealed FROM user_connections WHERE workspace = ? AND principal = ? AND source = ?`,
    ),
    put: db.prepare(
      `INSERT INTO user_connections (${COLUMNS}, sealed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ${PUT_CONFLICT}`,
    ),
    list: db.prepare(
      `SELECT ${COLUMNS} FROM user_connections WHERE workspace = ? AND principal = ? ORDER BY source`,
    ),
    remove: db.prepare(
      `DELETE FROM user_connections WHERE workspace = ? AND (? IS NULL OR principal = ?) AND (? IS NULL OR source = ?)`,
    ),
    sweep: db.prepare('DELETE FROM user_connection_consumed WHERE expires_at_ms <= ?'),
    consume: db.prepare(
      'INSERT INTO user_connection_consumed (id, expires_at_ms) VALUES (?, ?) ON CONFLICT (id) DO NOTHING',
    ),
    getValue: db.prepare('SELECT sealed FROM user_connection_values WHERE name = ?'),
    putValue: db.prepare(
      'INSERT INTO user_connection_values (name, sealed) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET sealed = excluded.sealed',
    ),
  } satisfies Record<string, StatementSync>;
}

/** Creates the file with owner-only permissions when it does not exist yet (SQLite gives its WAL
 * files the database file's mode). */
function createPrivately(path: string): void {
  if (path === ':memory:' || path === '') return;
  try {
    closeSync(openSync(path, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/** Runs synchronous driver work and reports its failure as a rejected promise, as the port promises. */
function attempt<T>(work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error('connection store failure'));
  }
}

export class SqliteConnectionRows implements ConnectionRows {
  private readonly db: DatabaseSync;
  private readonly statements: ReturnType<typeof prepare>;
  private readonly mutex = new KeyedMutex();
  private readonly now: () => number;

  /** `path` is a file (created when missing) or ':memory:'. */
  constructor(path: string, options: ConnectionRowsOptions = {}) {
    createPrivately(path);
    this.db = new DatabaseSync(path);
    this.db.exec(SCHEMA);
    this.statements = prepare(this.db);
    this.now = options.now ?? Date.now;
  }

  get(key: ConnectionKey): Promise<ConnectionRow | undefined> {
    return attempt(() => {
      const found = this.statements.get.get(key.workspace, key.principal, key.source);
      return found === undefined ? undefined : rowFrom(found as unknown as StoredRow);
    });
  }

  put(key: ConnectionKey, row: ConnectionRow): Promise<void> {
    return attempt(() => {
      this.statements.put.run(...putValues(key, row));
    });
  }

  exclusive<T>(key: ConnectionKey, waitMs: number, task: () => Promise<T>): Promise<T> {
    return this.mutex.run(keyName(key), waitMs, task);
  }

  list(workspace: string, principal: string): Promise<ConnectionSummary[]> {
    return attempt(() =>
      this.statements.list
        .all(workspace, principal)
        .map((found) => summaryFrom(found as unknown as StoredRow)),
    );
  }

  remove(filter: RevokeFilter): Promise<number> {
    const principal = filter.principal ?? null;
    const source = filter.source ?? null;
    return attempt(() =>
      Number(this.statements.remove.run(filter.workspace, principal, principal, source, source).changes),
    );
  }

  consumeOnce(id: string, expiresAtMs: number): Promise<boolean> {
    return attempt(() => {
      const now = this.now();
      this.statements.sweep.run(now);
      if (alreadyExpired(expiresAtMs, now)) return false;
      return Number(this.statements.consume.run(id, expiresAtMs).changes) === 1;
    });
  }

  getValue(name: string): Promise<string | undefined> {
    return attempt(() => {
      const found = this.statements.getValue.get(name);
      return found === undefined ? undefined : String(found['sealed']);
    });
  }

  putValue(name: string, sealed: string): Promise<void> {
    return attempt(() => {
      this.statements.putValue.run(name, sealed);
    });
  }

  close(): Promise<void> {
    return attempt(() => {
      if (this.db.isOpen) this.db.close();
    });
  }
}
