// The connection store's tokens at rest (issue 42): sealed under the first key, opened by any
// configured key (rotation), bound to their row, and never in the clear in a store row.
import { describe, expect, it } from 'vitest';
import { ConnectionVault, MemoryConnectionRows } from '../../../gateway/connections/index.js';
import { ValueCipher } from '../../../gateway/shared-state/value-cipher.js';

const OLD = 'old-connection-key-0123456789-abcdefghijk';
const NEW = 'new-connection-key-0123456789-abcdefghijk';
const alice = { workspace: 'team', principal: 'key-alice', source: 'saas' };
const bob = { ...alice, principal: 'key-bob' };
const grant = {
  accessToken: 'eyJ-access-token-of-alice',
  refreshToken: 'refresh-token-of-alice',
  expiresAtMs: 2_000_000,
  refreshAtMs: 1_900_000,
  issuer: 'https://as.example',
  scope: 'repo',
};

describe('connection vault', () => {
  it('user-oauth:vault-rotation — a grant sealed under the old key opens while both are configured and is resealed under the new one', async () => {
    const rows = new MemoryConnectionRows();
    await new ConnectionVault(rows, new ValueCipher([OLD])).store(alice, grant);
    const row = await rows.get(alice);
    expect(row?.sealed).not.toContain('access-token');
    expect(row?.sealed).not.toContain('refresh-token');
    expect(row?.summary).toMatchObject({
      issuer: 'https://as.example',
      scope: 'repo',
      expiresAtMs: 2_000_000,
    });
    expect(JSON.stringify(row?.summary)).not.toContain('token-of-alice');
    // Rotation: the new key first, the old one kept.
    const rotating = new ConnectionVault(rows, new ValueCipher([NEW, OLD]));
    expect(await rotating.grant(alice)).toEqual(grant);
    expect(await new ConnectionVault(rows, new ValueCipher([NEW])).grant(alice)).toBeUndefined();
    // A refresh stores it again, under the new key: the old key can go.
    await rotating.store(alice, { ...grant, accessToken: 'eyJ-next' }, 1_000);
    expect(await new ConnectionVault(rows, new ValueCipher([NEW])).grant(alice)).toMatchObject({
      accessToken: 'eyJ-next',
      refreshToken: 'refresh-token-of-alice',
    });
    expect((await rows.get(alice))?.summary).toMatchObject({ connectedAtMs: 1_000 });
  });

  it('user-oauth:vault-row-binding — a sealed grant copied onto another user opens nowhere', async () => {
    const rows = new MemoryConnectionRows();
    const vault = new ConnectionVault(rows, new ValueCipher([OLD]));
    await vault.store(alice, grant);
    const row = await rows.get(alice);
    await rows.put(bob, { sealed: row?.sealed ?? '', summary: { ...row!.summary, principal: 'key-bob' } });
    expect(await vault.grant(bob)).toBeUndefined();
    expect(await vault.grant(alice)).toEqual(grant);
    // Named values are bound to their name the same way.
    await vault.storeValue('registration\0team\0saas', '{"clientId":"c"}');
    await rows.putValue('registration\0team\0other', (await rows.getValue('registration\0team\0saas')) ?? '');
    expect(await vault.value('registration\0team\0other')).toBeUndefined();
    expect(await vault.value('registration\0team\0saas')).toBe('{"clientId":"c"}');
  });
});
