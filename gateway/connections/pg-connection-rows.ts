// The cluster ConnectionRows (issue 42): PostgreSQL shared by every replica, read on each use, so a
// revocation on one replica holds on all at their next read. `exclusive` queues a replica's own
// callers in process, then takes a session-level advisory lock (pg-key-lock.ts); consumed ids are
// inserted once (ON CONFLICT DO NOTHING) and swept when expired. Consumed ids and value names are
// kept as their SHA-256 digests: PostgreSQL text cannot hold the NUL the gateway's names are joined
// with, and a digest keeps the primary keys short whatever the name. The driver loads only when opened.
import { createHash } from 'node:crypto';
import type pg from 'pg';
import type {
  ConnectionKey,
  ConnectionRow,
  ConnectionRows,
  ConnectionSummary,
  RevokeFilter,
} from './connection-rows.js';
import { alreadyExpired, type ConnectionRowsOptions } from './consumed-ids.js';
import { keyName, KeyedMutex } from './keyed-mutex.js';
import { createConnectionTables } from './pg-connection-schema.js';
import { advisoryLockId, PgKeyLock } from './pg-key-lock.js';
import {
  PUT_CONFLICT,
  putValues,
  rowFrom,
  SUMMARY_COLUMNS as COLUMNS,
  summaryFrom,
  type StoredRow,
} from './connection-tables.js';
import { silentLogger, type Logger } from '../telemetry/logger.js';

export interface PgConnectionRowsOptions extends ConnectionRowsOptions {
  /** Warned when a pooled session fails (its SQLSTATE only). */
  readonly logger?: Logger;
  /** Sessions for queries (default 8). */
  readonly maxQuerySessions?: number;
  /** Sessions holding `exclusive` locks at once (default 8); a caller finding none free within its
   * wait gets ConnectionLockTimeout. */
  readonly maxLockSessions?: number;
}

/** What stands for a consumed id or a value name in its table. */
function stored(name: string): string {
  return createHash('sha256').update(name).digest('base64url');
}

export class PgConnectionRows implements ConnectionRows {
  private readonly mutex = new KeyedMutex();
  private readonly keyLock: PgKeyLock;
  private closed = false;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly lockPool: pg.Pool,
    logger: Logger,
    private readonly now: () => number,
  ) {
    this.keyLock = new PgKeyLock(lockPool, logger);
  }

  /** Connects (`config` as node-postgres takes it) and creates the tables when missing. */
  static async open(config: pg.PoolConfig, options: PgConnectionRowsOptions = {}): Promise<PgConnectionRows> {
    const { default: driver } = await import('pg');
    const logger = options.logger ?? silentLogger;
    // A query waits at most 10 s for a free session (unless `config` says otherwise), never forever.
    const pool = new driver.Pool({
      connectionTimeoutMillis: 10_000,
      ...config,
      max: options.maxQuerySessions ?? 8,
    });
    const lockPool = new driver.Pool({ ...config, max: options.maxLockSessions ?? 8 });
    for (const each of [pool, lockPool])
      each.on('error', (error: Error & { code?: string }) =>
        logger.warn({ code: error.code }, 'PostgreSQL connection store: an idle session failed'),
      );
    try {
      await createConnectionTables(pool);
    } catch (error) {
      await Promise.all([pool.end(), lockPool.end()]);
      throw error;
    }
    return new PgConnectionRows(pool, lockPool, logger, options.now ?? Date.now);
  }

  async get(key: ConnectionKey): Promise<ConnectionRow | undefined> {
    const { rows } = await this.pool.query<StoredRow>(
      `SELECT ${COLUMNS}, sealed FROM user_connections WHERE workspace = $1 AND principal = $2 AND source = $3`,
      [key.workspace, key.principal, key.source],
    );
    return rows[0] === undefined ? undefined : rowFrom(rows[0]);
  }

  async put(key: ConnectionKey, row: ConnectionRow): Promise<void> {
    await this.pool.query(
      `INSERT INTO user_connections (${COLUMNS}, sealed) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ${PUT_CONFLICT}`,
      putValues(key, row),
    );
  }

  exclusive<T>(key: ConnectionKey, waitMs: number, task: () => Promise<T>): Promise<T> {
    // One deadline for both waits: behind this replica's own callers, then behind other replicas.
    const deadline = Date.now() + waitMs;
    const name = keyName(key);
    return this.mutex.run(name, waitMs, () => this.keyLock.run(advisoryLockId(name), deadline, waitMs, task));
  }

  async list(workspace: string, principal: string): Promise<ConnectionSummary[]> {
    const { rows } = await this.pool.query<StoredRow>(
      `SELECT ${COLUMNS} FROM user_connections WHERE workspace = $1 AND principal = $2 ORDER BY source`,
      [workspace, principal],
    );
    return rows.map(summaryFrom);
  }

  async remove(filter: RevokeFilter): Promise<number> {
    const result = await this.pool.query(
      `DELETE FROM user_connections
       WHERE workspace = $1 AND ($2::text IS NULL OR principal = $2) AND ($3::text IS NULL OR source = $3)`,
      [filter.workspace, filter.principal ?? null, filter.source ?? null],
    );
    return result.rowCount ?? 0;
  }

  async consumeOnce(id: string, expiresAtMs: number): Promise<boolean> {
    const now = this.now();
    await this.pool.query('DELETE FROM user_connection_consumed WHERE expires_at_ms <= $1', [now]);
    if (alreadyExpired(expiresAtMs, now)) return false;
    // An id that expired after the sweep above is taken over rather than refused.
    const result = await this.pool.query(
      `INSERT INTO user_connection_consumed (id, expires_at_ms) VALUES ($1, $2)
       ON CONFLICT (id) DO UPDATE SET expires_at_ms = excluded.expires_at_ms
         WHERE user_connection_consumed.expires_at_ms <= $3`,
      [stored(id), expiresAtMs, now],
    );
    return result.rowCount === 1;
  }

  async getValue(name: string): Promise<string | undefined> {
    const { rows } = await this.pool.query<{ sealed: string }>(
      'SELECT sealed FROM user_connection_values WHERE name = $1',
      [stored(name)],
    );
    return rows[0]?.sealed;
  }

  async putValue(name: string, sealed: string): Promise<void> {
    await this.pool.query(
      `INSERT INTO user_connection_values (name, sealed) VALUES ($1, $2)
       ON CONFLICT (name) DO UPDATE SET sealed = excluded.sealed`,
      [stored(name), sealed],
    );
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([this.pool.end(), this.lockPool.end()]);
  }
}
