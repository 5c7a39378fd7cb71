// The PostgreSQL connection store's tables (issue 42), created when missing by whichever replica
// starts first: the statements run in one transaction under a transaction-level advisory lock, so
// replicas starting together take turns instead of racing on CREATE TABLE IF NOT EXISTS (which can
// fail with a duplicate pg_type row when two sessions create the same table at once).
import type pg from 'pg';
import { connectionTables } from './connection-tables.js';

const SCHEMA = connectionTables({ text: 'text', millis: 'bigint' });

export async function createConnectionTables(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  let failed: Error | undefined;
  try {
    await client.query('BEGIN');
    await client.query("SELECT pg_advisory_xact_lock(hashtextextended('agw-user-connections-schema', 0))");
    await client.query(SCHEMA);
    await client.query('COMMIT');
  } catch (error) {
    failed = error instanceof Error ? error : new Error('connection store schema failed');
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release(failed);
  }
}
