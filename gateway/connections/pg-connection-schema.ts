// The PostgreSQL connection store's tables (issue 42), created when missing by whichever replica
// starts first: the statements run in one transaction under a transaction-level advisory lock, so
// replicas starting together take turns instead of racing on CREATE TABLE IF NOT EXISTS (which can
// fail with a duplicate pg_type row when two sessions create the same table at once).
import type pg from 'pg';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS user_connections (
  workspace text NOT NULL, principal text NOT NULL, source text NOT NULL,
  issuer text NOT NULL, scope text, connected_at_ms bigint NOT NULL, refreshed_at_ms bigint,
  expires_at_ms bigint, sealed text NOT NULL,
  PRIMARY KEY (workspace, principal, source));
CREATE INDEX IF NOT EXISTS user_connections_source ON user_connections (workspace, source);
CREATE TABLE IF NOT EXISTS user_connection_consumed (id text PRIMARY KEY, expires_at_ms bigint NOT NULL);
CREATE INDEX IF NOT EXISTS user_connection_consumed_expiry ON user_connection_consumed (expires_at_ms);
CREATE TABLE IF NOT EXISTS user_connection_values (name text PRIMARY KEY, sealed text NOT NULL);
`;

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
