// The `postgres` connector: one configured read-only SQL query, each row a document. The query runs
// in a READ ONLY transaction, through the extended protocol (one statement only) and a server-side
// cursor fetched `batchSize` rows at a time, with a statement timeout. Rows must have the columns
// id, title and body; url and updated_at are optional.
import type pg from 'pg';
import { resolveSecret, type DataSourceConfig } from '../../config/index.js';
import type { Connector, SourceItem } from './connector.js';
import type { ConnectorContext } from './connector-context.js';
import { ConnectorError } from './connector-error.js';
import { findReachDenied, type NetworkGuard } from '../../reach/index.js';

type PostgresSource = Extract<DataSourceConfig, { type: 'postgres' }>;

const REQUIRED = ['id', 'title', 'body'] as const;
const CURSOR = 'agw_sync';

function text(value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return String(value);
  return JSON.stringify(value);
}

function toItem(row: Record<string, unknown>): SourceItem | undefined {
  const id = text(row['id']);
  if (id === undefined || id === '') return undefined;
  return {
    externalId: id,
    title: text(row['title']) ?? id,
    body: text(row['body']) ?? '',
    url: text(row['url']),
    updatedAt: text(row['updated_at']),
  };
}

/** A database error as a safe message: its SQLSTATE or socket error code, never its text (a server
 * message can quote row data, and a client one the connection target). */
function safeError(error: unknown, phase: 'connect' | 'query'): Error {
  if (error instanceof ConnectorError) return error;
  const denied = findReachDenied(error);
  if (denied !== undefined) return denied;
  const code = (error as { code?: unknown }).code;
  const what =
    phase === 'connect' ? 'could not connect to the database' : 'the database refused the sync query';
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code))
    return new ConnectorError(`${what}: SQLSTATE ${code}`);
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return new ConnectorError(`${what}: ${code}`);
  return new ConnectorError(phase === 'connect' ? `${what} (timeout or protocol error)` : what);
}

export function postgresConnector(source: PostgresSource, context: ConnectorContext): Connector {
  return {
    async *items(signal): AsyncGenerator<SourceItem> {
      // node-postgres loads with the first PostgreSQL source's first sync (issue 26).
      const { Client } = (await import('pg')).default;
      const client = new Client({
        connectionString: resolveSecret(source.connectionString, context.secrets),
        application_name: `agent-gateway sync ${source.name}`,
        connectionTimeoutMillis: Math.min(source.timeoutMs, 30_000),
        // Under a tenant reach policy the host is resolved and checked before it is dialled, and
        // a Unix socket path is refused.
        ...(context.network === undefined
          ? {}
          : { stream: () => (context.network as NetworkGuard).socket() }),
      });
      const abort = () => void client.end().catch(() => undefined);
      signal.addEventListener('abort', abort, { once: true });
      try {
        await client.connect().catch((error: unknown) => {
          throw safeError(error, 'connect');
        });
        client.on('error', () => undefined);
        // The extended protocol refuses a second statement smuggled in after a semicolon.
        const run = (sql: string) => {
          const extended: pg.QueryConfig & { queryMode: 'extended' } = { text: sql, queryMode: 'extended' };
          return client.query<Record<string, unknown>>(extended).catch((error: unknown) => {
            throw safeError(error, 'query');
          });
        };
        await run('BEGIN TRANSACTION READ ONLY');
        await client
          .query("SELECT set_config('statement_timeout', $1, true)", [String(source.timeoutMs)])
          .catch((error: unknown) => {
            throw safeError(error, 'query');
          });
        await run(`DECLARE ${CURSOR} NO SCROLL CURSOR FOR ${source.query}`);
        let seen = 0;
        let checked = false;
        while (seen < source.maxRows && !signal.aborted) {
          const batch = Math.min(source.batchSize, source.maxRows - seen);
          const result = await run(`FETCH FORWARD ${batch} FROM ${CURSOR}`);
          if (!checked) {
            const columns = new Set(result.fields.map((field) => field.name));
            const missing = REQUIRED.filter((name) => !columns.has(name));
            if (missing.length > 0)
              throw new ConnectorError(
                `the sync query must return the columns id, title and body; missing: ${missing.join(', ')}`,
              );
            checked = true;
          }
          for (const row of result.rows) {
            const item = toItem(row);
            if (item !== undefined) yield item;
          }
          seen += result.rows.length;
          if (result.rows.length < batch) break;
          // A listing cut short must fail rather than succeed, or the rows past the cap would be
          // removed from the index as deleted.
          if (seen >= source.maxRows && (await run(`FETCH FORWARD 1 FROM ${CURSOR}`)).rows.length > 0)
            throw new ConnectorError(
              `the sync query returned more than maxRows (${source.maxRows}) rows; raise maxRows`,
            );
        }
        if (signal.aborted) throw new ConnectorError('the sync was cancelled');
        await run('COMMIT');
      } finally {
        signal.removeEventListener('abort', abort);
        await client.end().catch(() => undefined);
      }
    },
  };
}
