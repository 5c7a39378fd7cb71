import { describe, it, expect } from 'vitest';
import { corruptLastCharacter } from '../../support/corrupt-key.js';
import {
  authenticate,
  generateKey,
  type AuthOutcome,
  type GeneratedKey,
} from '../../../gateway/auth/index.js';
import { validateConfig, formatProblems, type GatewayConfig } from '../../../gateway/config/index.js';

const NOW = new Date('2026-06-01T12:00:00Z');

function configWith(workspaces: { name: string; keys: Record<string, unknown>[] }[]): GatewayConfig {
  const result = validateConfig({ version: 1, workspaces });
  if (!result.ok) throw new Error(formatProblems(result.problems));
  return result.config;
}

function record(key: GeneratedKey, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { id: key.id, hash: key.hash, ...extra };
}

function reasonOf(outcome: AuthOutcome): string {
  return outcome.ok ? 'ok' : outcome.reason;
}

describe('authenticate', () => {
  const reader = generateKey();
  const writer = generateKey();
  const revoked = generateKey();
  const expired = generateKey();
  const later = generateKey();
  const config = configWith([
    { name: 'alpha', keys: [record(reader, { name: 'ci', sources: ['docs'], tools: ['docs__*'] })] },
    {
      name: 'beta',
      keys: [
        record(writer, { access: 'write' }),
        record(revoked, { revoked: true }),
        record(expired, { expiresAt: '2026-06-01T11:59:59Z' }),
        record(later, { expiresAt: '2026-06-01T12:00:01Z' }),
      ],
    },
  ]);

  it('auth:workspace-from-key accepts a valid key and binds the principal to the key workspace', () => {
    const outcome = authenticate(`Bearer ${reader.key}`, config, NOW);
    if (!outcome.ok) throw new Error(`rejected: ${outcome.reason}`);
    expect(outcome.principal.workspace.name).toBe('alpha');
    expect(outcome.principal.keyId).toBe(reader.id);
    expect(outcome.principal.keyName).toBe('ci');
    expect(outcome.principal.access).toBe('read');
    expect(outcome.principal.sourcePatterns).toEqual(['docs']);
    expect(outcome.principal.toolPatterns).toEqual(['docs__*']);
    expect(outcome.principal.keyFingerprint).toBe(reader.hash.slice(7, 19));
  });

  it('resolves a write key to its own workspace and access', () => {
    const outcome = authenticate(`Bearer ${writer.key}`, config, NOW);
    expect(outcome.ok && [outcome.principal.workspace.name, outcome.principal.access]).toEqual([
      'beta',
      'write',
    ]);
  });

  it('accepts the scheme in any case', () => {
    expect(reasonOf(authenticate(`bearer ${reader.key}`, config, NOW))).toBe('ok');
    expect(reasonOf(authenticate(`BEARER ${reader.key}`, config, NOW))).toBe('ok');
  });

  it('auth:401-missing reports missing for an absent or empty header', () => {
    expect(reasonOf(authenticate(undefined, config, NOW))).toBe('missing');
    expect(reasonOf(authenticate('', config, NOW))).toBe('missing');
    expect(reasonOf(authenticate('   ', config, NOW))).toBe('missing');
  });

  it('auth:401-not-bearer reports not-bearer for another scheme', () => {
    expect(reasonOf(authenticate(`Basic ${Buffer.from('u:p').toString('base64')}`, config, NOW))).toBe(
      'not-bearer',
    );
    expect(reasonOf(authenticate(reader.key, config, NOW))).toBe('not-bearer');
  });

  it('auth:401-malformed reports malformed for a bearer token that is not a well-formed key', () => {
    expect(reasonOf(authenticate('Bearer not-a-key', config, NOW))).toBe('malformed');
    expect(reasonOf(authenticate(`Bearer ${corruptLastCharacter(reader.key)}`, config, NOW))).toBe(
      'malformed',
    );
  });

  it('auth:401-unknown reports unknown for a well-formed key that is not in the config', () => {
    const stranger = generateKey();
    expect(reasonOf(authenticate(`Bearer ${stranger.key}`, config, NOW))).toBe('unknown');
  });

  it('auth:401-unknown reports unknown when the id exists but the secret does not match the stored hash', () => {
    const presented = generateKey();
    const other = generateKey();
    const mixed = configWith([{ name: 'alpha', keys: [{ id: presented.id, hash: other.hash }] }]);
    expect(reasonOf(authenticate(`Bearer ${presented.key}`, mixed, NOW))).toBe('unknown');
    expect(reasonOf(authenticate(`Bearer ${other.key}`, mixed, NOW))).toBe('unknown');
  });

  it('auth:401-revoked reports revoked for a revoked key', () => {
    expect(reasonOf(authenticate(`Bearer ${revoked.key}`, config, NOW))).toBe('revoked');
  });

  it('auth:401-expired reports expired once expiresAt is not after now', () => {
    expect(reasonOf(authenticate(`Bearer ${expired.key}`, config, NOW))).toBe('expired');
    expect(reasonOf(authenticate(`Bearer ${later.key}`, config, NOW))).toBe('ok');
    expect(reasonOf(authenticate(`Bearer ${later.key}`, config, new Date('2026-06-01T12:00:01Z')))).toBe(
      'expired',
    );
  });

  it('judges expiry against the given now, not the wall clock', () => {
    expect(reasonOf(authenticate(`Bearer ${expired.key}`, config, new Date('2026-01-01T00:00:00Z')))).toBe(
      'ok',
    );
  });

  it('stops accepting a key once a new config no longer holds it', () => {
    const without = configWith([{ name: 'alpha', keys: [] }]);
    expect(reasonOf(authenticate(`Bearer ${reader.key}`, config, NOW))).toBe('ok');
    expect(reasonOf(authenticate(`Bearer ${reader.key}`, without, NOW))).toBe('unknown');
  });

  it('rejects a header carrying two tokens', () => {
    expect(reasonOf(authenticate(`Bearer ${reader.key} ${writer.key}`, config, NOW))).not.toBe('ok');
  });
});
