// The PostgreSQL connection store's tables (issue 42), created when missing by whichever replica
// starts first: the statements run in one transaction under a transaction-level advisory lock, so
// replicas starting together take turns instead of racing on CREATE TABLE IF NOT EXISTS (which can
// fail with a duplicate pg_type row when two sessions create the same table at once). Tables that
// exist already are left alone: a role granted only reads and writes on them (no CREATE on the
// schema, which even IF NOT EXISTS needs) opens the store too.
import type pg from 'pg';
import { connectionTables } from './connection-tables.js';

const SCHEMA = connectionTables({ text: 'text', millis: 'bigint' });
const TABLES = ['user_connections', 'user_connection_consumed', 'user_connection_values'];

async function tablesExist(client: pg.PoolClient): Promise<boolean> {
  const { rows } = await client.query<{ present: boolean }>(
    'SELECT bool_and(to_regclass(name) IS NOT NULL) AS present FROM unnest($1::text[]) AS name',
    [TABLES],
  );
  return rows[0]?.present === true;
}

export async function createConnectionTables(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  let failed: Error | undefined;
  try {
    if (await tablesExist(client)) return;
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
