// The connection store's tokens at rest (issue 42): each grant sealed with AES-256-GCM under the
// `userConnections.encryption.keys` Secrets (the first encrypts, all decrypt: rotation as for Redis,
// docs/redis.md) and bound to its row (workspace, principal, source as associated data), so a row
// copied onto another user's or source's opens nowhere. A grant read under an older key is rewritten
// under the first at its next refresh. What the store keeps in the clear is the summary only.
import type { ValueCipher } from '../shared-state/value-cipher.js';
import type { ConnectionKey, ConnectionRows, ConnectionSummary } from './connection-rows.js';
import { grantOf, grantText, type UserGrant } from './user-grant.js';

function rowContext(key: ConnectionKey): string {
  return `agw-user-connection\0${key.workspace}\0${key.principal}\0${key.source}`;
}

export class ConnectionVault {
  constructor(
    readonly rows: ConnectionRows,
    private readonly cipher: ValueCipher,
    private readonly now: () => number = Date.now,
  ) {}

  /** The grant of one connection, or undefined (none, or one that no configured key opens). */
  async grant(key: ConnectionKey): Promise<UserGrant | undefined> {
    const row = await this.rows.get(key);
    if (row === undefined) return undefined;
    const opened = this.cipher.decrypt(row.sealed, rowContext(key));
    return opened === undefined ? undefined : grantOf(opened.plain);
  }

  /** Stores a grant; `connectedAtMs` is kept from the first consent when this is a refresh. */
  async store(key: ConnectionKey, grant: UserGrant, connectedAtMs?: number): Promise<void> {
    const now = this.now();
    const summary: ConnectionSummary = {
      ...key,
      issuer: grant.issuer,
      ...(grant.scope === undefined ? {} : { scope: grant.scope }),
      connectedAtMs: connectedAtMs ?? now,
      ...(connectedAtMs === undefined ? {} : { refreshedAtMs: now }),
      expiresAtMs: grant.expiresAtMs,
    };
    await this.rows.put(key, { sealed: this.cipher.encrypt(grantText(grant), rowContext(key)), summary });
  }

  /** A value of the gateway's own (a client registration), sealed under its name. */
  async value(name: string): Promise<string | undefined> {
    const sealed = await this.rows.getValue(name);
    return sealed === undefined ? undefined : this.cipher.decrypt(sealed, `agw-value\0${name}`)?.plain;
  }

  async storeValue(name: string, plain: string): Promise<void> {
    await this.rows.putValue(name, this.cipher.encrypt(plain, `agw-value\0${name}`));
  }
}
