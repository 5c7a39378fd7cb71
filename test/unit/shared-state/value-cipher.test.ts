// The encryption of secret values at rest in Redis and the digests that name Redis keys (issue
// 28.8): values open only with a configured key and in the place they were written for; the first
// key encrypts and every key decrypts (rotation); the config refuses Redis without keys.
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../../gateway/config/index.js';
import { requestRules } from '../../../gateway/limits/request-rules.js';
import { keyDigest } from '../../../gateway/shared-state/key-digest.js';
import { EncryptionKeyError, ValueCipher } from '../../../gateway/shared-state/value-cipher.js';

const A = 'key-a-0123456789abcdef0123456789abcdef';
const B = 'key-b-0123456789abcdef0123456789abcdef';
const SECRET = '{"sessionId":"3f6c0b1e-upstream-session"}';

describe('ValueCipher', () => {
  it('security:redis-values-encrypted — a value opens only with a configured key, in its own place, untampered', () => {
    const cipher = new ValueCipher([A]);
    const sealed = cipher.encrypt(SECRET, 'agw:session:k1');
    expect(sealed).toMatch(/^agwe1\.[A-Za-z0-9_-]{8}\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain('upstream-session');
    expect(cipher.encrypt(SECRET, 'agw:session:k1')).not.toBe(sealed);
    expect(cipher.decrypt(sealed, 'agw:session:k1')).toEqual({ plain: SECRET, stale: false });
    // Moved to another key, opened with another Secret, or changed by one bit: nothing.
    expect(cipher.decrypt(sealed, 'agw:session:k2')).toBeUndefined();
    expect(new ValueCipher([B]).decrypt(sealed, 'agw:session:k1')).toBeUndefined();
    const body = Buffer.from(sealed.split('.')[2] as string, 'base64url');
    body[20] = (body[20] as number) ^ 1;
    const tampered = `${sealed.split('.').slice(0, 2).join('.')}.${body.toString('base64url')}`;
    expect(cipher.decrypt(tampered, 'agw:session:k1')).toBeUndefined();
    for (const garbage of ['', 'plain', 'agwe1.x', 'agwe1.AAAAAAAA.AA', SECRET])
      expect(cipher.decrypt(garbage, 'agw:session:k1')).toBeUndefined();
  });

  it('security:redis-key-rotation — the first key encrypts, every key decrypts; values under a later key are stale', () => {
    const before = new ValueCipher([A]);
    const added = new ValueCipher([A, B]);
    const swapped = new ValueCipher([B, A]);
    const after = new ValueCipher([B]);
    const old = before.encrypt(SECRET, 'ctx');
    expect(added.decrypt(old, 'ctx')).toEqual({ plain: SECRET, stale: false });
    expect(swapped.decrypt(old, 'ctx')).toEqual({ plain: SECRET, stale: true });
    const fresh = swapped.encrypt(SECRET, 'ctx');
    expect(added.decrypt(fresh, 'ctx')).toEqual({ plain: SECRET, stale: true });
    expect(after.decrypt(fresh, 'ctx')).toEqual({ plain: SECRET, stale: false });
    expect(after.decrypt(old, 'ctx')).toBeUndefined();
    expect(before.rotating).toBe(false);
    expect(swapped.rotating).toBe(true);
    expect(swapped.primaryId).toBe(after.primaryId);
    // Seal keys follow the same order and differ by purpose.
    expect(swapped.derive('requestState seal')).toEqual([
      ...after.derive('requestState seal'),
      ...before.derive('requestState seal'),
    ]);
    expect(before.derive('other')[0]?.equals(before.derive('requestState seal')[0] as Buffer)).toBe(false);
  });

  it('security:redis-key-refused — no key, a short key or a repeated key is refused without echoing it', () => {
    expect(() => new ValueCipher([])).toThrow(EncryptionKeyError);
    expect(() => new ValueCipher(['short-secret-value'])).toThrow(/key 0 is shorter than 32/);
    expect(() => new ValueCipher([A, A])).toThrow(/key 1 repeats/);
    try {
      new ValueCipher(['short-secret-value']);
    } catch (error) {
      expect((error as Error).message).not.toContain('short-secret-value');
    }
  });
});

describe('Redis key names', () => {
  it('security:redis-key-digests — digests carry no material and no separator, glob or hash-tag character', () => {
    const digest = keyDigest('acme/github/{"url":"https://api.example.com/mcp"}');
    expect(digest).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(keyDigest('acme/')).not.toBe(keyDigest('acme/github/'));
    const rules = requestRules(
      'agw:',
      { name: 'acme', limits: { requestsPerMinute: 5 } },
      { id: 'AbCdEfGhIj', limits: { requestsPerSecond: 1, toolCallsPerDay: 9 } },
      'tool-call',
    );
    expect(rules.map((rule) => rule.key)).toHaveLength(3);
    const tag = /^agw:\{([A-Za-z0-9_-]{32})\}:/;
    for (const rule of rules) {
      expect(rule.key).toMatch(tag);
      expect(rule.key).not.toMatch(/acme|AbCdEfGhIj/);
    }
    // One hash tag per workspace: a request's counters share a Cluster slot.
    expect(new Set(rules.map((rule) => tag.exec(rule.key)?.[1])).size).toBe(1);
  });
});

describe('sharedState.encryption', () => {
  const redis = { url: { env: 'REDIS_URL' } };
  it('security:redis-needs-key — shared Redis without encryption keys is refused; with keys, or without Redis, accepted', () => {
    const refused = validateConfig({ version: 1, sharedState: { redis } });
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.problems.map((p) => p.path)).toEqual(['sharedState.encryption']);
    const keys = [{ env: 'AGW_REDIS_ENCRYPTION_KEY' }, { file: '/etc/agw/old-key' }];
    expect(validateConfig({ version: 1, sharedState: { redis, encryption: { keys } } }).ok).toBe(true);
    expect(validateConfig({ version: 1 }).ok).toBe(true);
    expect(validateConfig({ version: 1, sharedState: { redis, encryption: { keys: [] } } }).ok).toBe(false);
    expect(
      validateConfig({ version: 1, sharedState: { redis, encryption: { keys: ['inline-secret'] } } }).ok,
    ).toBe(false);
  });
});
