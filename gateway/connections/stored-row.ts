// A connection as the SQL stores read it back: the key, the summary's columns, and (for a single
// row) the sealed grant. Shared by the SQLite and PostgreSQL stores; times are epoch milliseconds
// (PostgreSQL's bigint arrives as a string, hence Number()).
import type { ConnectionRow, ConnectionSummary } from './connection-rows.js';

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
