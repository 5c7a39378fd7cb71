// The SourceLock for replicated gateways sharing one PostgreSQL index (issue 4, knowledge doc §0):
// a session-level advisory lock per source, taken with pg_try_advisory_lock so a second process
// skips the sync instead of waiting. The lock lives on one pooled connection for the whole sync.
import type pg from 'pg';
import type { SourceLock } from './source-lock.js';

export class PgSourceLock implements SourceLock {
  constructor(private readonly pool: pg.Pool) {}

  async tryWith<T>(key: string, task: () => Promise<T>): Promise<T | undefined> {
    const client = await this.pool.connect();
    try {
      const { rows } = await client.query<{ locked: boolean }>(
        "SELECT pg_try_advisory_lock(hashtextextended('agw-sync:' || $1, 0)) AS locked",
        [key],
      );
      if (rows[0]?.locked !== true) return undefined;
      try {
        return await task();
      } finally {
        await client.query("SELECT pg_advisory_unlock(hashtextextended('agw-sync:' || $1, 0))", [key]);
      }
    } finally {
      client.release();
    }
  }
}
