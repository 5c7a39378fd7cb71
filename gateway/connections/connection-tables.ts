// The tables of the SQL connection stores (SQLite and PostgreSQL, issue 42) and their rows: one
// schema in either dialect, the columns a row is written and read with, and a stored row turned back
// into a ConnectionRow. Times are epoch milliseconds (PostgreSQL's bigint arrives as a string).
import type { ConnectionKey, ConnectionRow, ConnectionSummary } from './connection-rows.js';

/** The tables in a dialect: `text` and `millis` are its column types. Connections are keyed by
 * (workspace, principal, source) and indexed for revocation by source; consumed ids by expiry. */
export function connectionTables(types: { text: string; millis: string }): string {
  const { text, millis } = types;
  return `
CREATE TABLE IF NOT EXISTS user_connections (
  workspace ${text} NOT NULL, principal ${text} NOT NULL, source ${text} NOT NULL,
  issuer ${text} NOT NULL, scope ${text}, connected_at_ms ${millis} NOT NULL, refreshed_at_ms ${millis},
  expires_at_ms ${millis}, sealed ${text} NOT NULL,
  PRIMARY KEY (workspace, principal, source));
CREATE INDEX IF NOT EXISTS user_connections_source ON user_connections (workspace, source);
CREATE TABLE IF NOT EXISTS user_connection_consumed (id ${text} PRIMARY KEY, expires_at_ms ${millis} NOT NULL);
CREATE INDEX IF NOT EXISTS user_connection_consumed_expiry ON user_connection_consumed (expires_at_ms);
CREATE TABLE IF NOT EXISTS user_connection_values (name ${text} PRIMARY KEY, sealed ${text} NOT NULL);
`;
}

/** The summary's columns (a listing reads these; a single row adds `sealed`). */
export const SUMMARY_COLUMNS =
  'workspace, principal, source, issuer, scope, connected_at_ms, refreshed_at_ms, expires_at_ms';

/** What `put` replaces when the key is there already (both dialects spell it alike). */
export const PUT_CONFLICT = `ON CONFLICT (workspace, principal, source) DO UPDATE SET issuer = excluded.issuer,
  scope = excluded.scope, connected_at_ms = excluded.connected_at_ms, refreshed_at_ms = excluded.refreshed_at_ms,
  expires_at_ms = excluded.expires_at_ms, sealed = excluded.sealed`;

/** The values of `INSERT INTO user_connections (SUMMARY_COLUMNS, sealed)`, in that order. */
export function putValues(key: ConnectionKey, row: ConnectionRow): (string | number | null)[] {
  const s = row.summary;
  return [
    key.workspace,
    key.principal,
    key.source,
    s.issuer,
    s.scope ?? null,
    s.connectedAtMs,
    s.refreshedAtMs ?? null,
    s.expiresAtMs ?? null,
    row.sealed,
  ];
}

type Millis = number | string | bigint;

export interface StoredRow {
  readonly workspace: string;
  readonly principal: string;
  readonly source: string;
  readonly issuer: string;
  readonly scope: string | null;
  readonly connected_at_ms: Millis;
  readonly refreshed_at_ms: Millis | null;
  readonly expires_at_ms: Millis | null;
  readonly sealed?: string;
}

function optionalMillis(value: Millis | null): number | undefined {
  return value === null ? undefined : Number(value);
}

export function summaryFrom(row: StoredRow): ConnectionSummary {
  return {
    workspace: row.workspace,
    principal: row.principal,
    source: row.source,
    issuer: row.issuer,
    scope: row.scope ?? undefined,
    connectedAtMs: Number(row.connected_at_ms),
    refreshedAtMs: optionalMillis(row.refreshed_at_ms),
    expiresAtMs: optionalMillis(row.expires_at_ms),
  };
}

export function rowFrom(row: StoredRow): ConnectionRow {
  return { sealed: row.sealed ?? '', summary: summaryFrom(row) };
}
