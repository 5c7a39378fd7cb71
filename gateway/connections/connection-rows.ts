// Where per-user upstream connections live (issue 42): the rows of the connection store, a port with
// three implementations — in memory (unit tests, a gateway without a path), SQLite through
// `node:sqlite` (the embedded default, survives restarts) and PostgreSQL (the cluster: shared by
// replicas, so a revocation on one is seen by all at their next read). A row's tokens are sealed
// (AES-256-GCM, connection-vault.ts) before they reach a store; what a store keeps in the clear is the
// summary (no token, no secret): enough to list a user's connections and to revoke by subject or
// source.

/** One connection: a user (the principal: an API key's id, or `oidc:<digest>` for an OAuth caller)
 * of one workspace connected to one source. */
export interface ConnectionKey {
  readonly workspace: string;
  readonly principal: string;
  readonly source: string;
}

/** What may be shown of a connection (never a token). */
export interface ConnectionSummary {
  readonly workspace: string;
  readonly principal: string;
  readonly source: string;
  /** The authorization server that issued the grant. */
  readonly issuer: string;
  /** The scopes granted (space-separated), when the server said. */
  readonly scope?: string | undefined;
  readonly connectedAtMs: number;
  readonly refreshedAtMs?: number | undefined;
  /** When the current access token expires, when known. */
  readonly expiresAtMs?: number | undefined;
}

export interface ConnectionRow {
  /** The sealed grant (tokens), opaque to the store. */
  readonly sealed: string;
  readonly summary: ConnectionSummary;
}

/** Which connections an admin or a user revokes: all of a workspace's, narrowed by principal and/or
 * source. */
export interface RevokeFilter {
  readonly workspace: string;
  readonly principal?: string | undefined;
  readonly source?: string | undefined;
}

export interface ConnectionRows {
  get(key: ConnectionKey): Promise<ConnectionRow | undefined>;
  /** Inserts or replaces. */
  put(key: ConnectionKey, row: ConnectionRow): Promise<void>;
  /** Runs `task` while no other holder of the same key runs one, in this process and (PostgreSQL)
   * in every replica: one refresh in flight per connection. Bounded wait: rejects with
   * ConnectionLockTimeout (keyed-mutex.ts) after `waitMs`, the task not run. A task that throws
   * rejects with its error and frees the key. */
  exclusive<T>(key: ConnectionKey, waitMs: number, task: () => Promise<T>): Promise<T>;
  /** The connections of one principal in one workspace, by source name. */
  list(workspace: string, principal: string): Promise<ConnectionSummary[]>;
  /** Deletes what the filter names; how many rows went. */
  remove(filter: RevokeFilter): Promise<number>;
  /** True the first time `id` is consumed (until `expiresAtMs`), false after: a consent callback's
   * state is single-use across replicas. Expired ids may be forgotten; an id whose `expiresAtMs` has
   * already passed is refused (false), never recorded. */
  consumeOnce(id: string, expiresAtMs: number): Promise<boolean>;
  /** A sealed value under a name (the gateway's dynamic client registrations at upstream
   * authorization servers, shared by replicas). */
  getValue(name: string): Promise<string | undefined>;
  putValue(name: string, sealed: string): Promise<void>;
  close(): Promise<void>;
}
