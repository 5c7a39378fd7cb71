// Picks the connection store for the configured shape (issue 42): the shared PostgreSQL database
// when `userConnections.postgres` is set (its driver loads only then, in PgConnectionRows.open), otherwise the SQLite file
// (':memory:' by default). Logs which store once; never the connection string.
import { resolveSecret, type SecretReader, type UserConnectionsConfig } from '../config/index.js';
import type { Logger } from '../telemetry/logger.js';
import type { ConnectionRows } from './connection-rows.js';
import { PgConnectionRows } from './pg-connection-rows.js';
import { SqliteConnectionRows } from './sqlite-connection-rows.js';

export async function openConnectionRows(
  config: UserConnectionsConfig,
  secrets: SecretReader,
  logger: Logger,
): Promise<ConnectionRows> {
  if (config.postgres === undefined) {
    const rows = new SqliteConnectionRows(config.sqlitePath);
    logger.info(
      { store: 'sqlite', path: config.sqlitePath },
      config.sqlitePath === ':memory:'
        ? 'User connections are kept in memory: they are lost at restart (set userConnections.sqlitePath or userConnections.postgres)'
        : 'User connections are stored in a SQLite file',
    );
    return rows;
  }
  const connectionString = resolveSecret(config.postgres.connectionString, secrets);
  const rows = await PgConnectionRows.open({ connectionString }, { logger });
  logger.info({ store: 'postgres' }, 'User connections are stored in PostgreSQL, shared by every replica');
  return rows;
}
