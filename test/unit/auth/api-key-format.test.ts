import { describe, it, expect } from 'vitest';
import { createHash } from 'node:crypto';
import { generateKey, hashKey, KEY_PREFIX, parseKey, redactedKey } from '../../../gateway/auth/index.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_SHAPE = /^agw_[0-9A-Za-z]{10}_[0-9A-Za-z]{49}$/;

/** Replaces the character at `index` with a different base62 character. */
function changeCharAt(key: string, index: number): string {
  const current = key[index]!;
  const replacement = BASE62[(BASE62.indexOf(current) + 1) % BASE62.length]!;
  return key.slice(0, index) + replacement + key.slice(index + 1);
}

describe('generateKey', () => {
  it('produces agw_ + 10 base62 id + _ + 49 base62 characters', () => {
    const { key, id } = generateKey();
    expect(key).toMatch(KEY_SHAPE);
    expect(key.startsWith(KEY_PREFIX)).toBe(true);
    expect(key.length).toBe(4 + 10 + 1 + 49);
    expect(key.slice(4, 14)).toBe(id);
    expect(id).toMatch(/^[0-9A-Za-z]{10}$/);
  });

  it('returns the sha256 of the whole key as the hash', () => {
    const { key, hash } = generateKey();
    expect(hash).toBe(`sha256:${createHash('sha256').update(key).digest('hex')}`);
    expect(hash).toBe(hashKey(key));
    expect(hash).not.toContain(key);
  });

  it('generates 1000 distinct keys and ids, each accepted by parseKey', () => {
    const keys = new Set<string>();
    const ids = new Set<string>();
    for (let i = 0; i < 1000; i += 1) {
      const generated = generateKey();
      expect(parseKey(generated.key)).toEqual({ id: generated.id });
      keys.add(generated.key);
      ids.add(generated.id);
    }
    expect(keys.size).toBe(1000);
    expect(ids.size).toBe(1000);
  });

  it('uses the whole base62 alphabet across many keys', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i += 1) for (const ch of generateKey().key.slice(15, 58)) seen.add(ch);
    expect(seen.size).toBe(62);
  });
});

describe('parseKey', () => {
  const { key, id } = generateKey();

  it('returns the id of a well-formed key', () => {
    expect(parseKey(key)).toEqual({ id });
  });

  it('rejects a wrong prefix', () => {
    expect(parseKey(`agx_${key.slice(4)}`)).toBeUndefined();
    expect(parseKey(`AGW_${key.slice(4)}`)).toBeUndefined();
    expect(parseKey(key.slice(4))).toBeUndefined();
  });

  it('rejects a key one character too short or too long', () => {
    expect(parseKey(key.slice(0, -1))).toBeUndefined();
    expect(parseKey(`${key}A`)).toBeUndefined();
    expect(parseKey(`${key.slice(0, 4)}${id}A_${key.slice(15)}`)).toBeUndefined();
  });

  it('rejects a key with any single character changed (checksum)', () => {
    for (const index of [4, 13, 15, 30, 57, 58, key.length - 1]) {
      expect(parseKey(changeCharAt(key, index)), `changed at ${index}`).toBeUndefined();
    }
  });

  it('rejects two swapped neighbouring characters of the secret', () => {
    let i = 20;
    while (key[i] === key[i + 1]) i += 1;
    const swapped = key.slice(0, i) + key[i + 1]! + key[i]! + key.slice(i + 2);
    expect(parseKey(swapped)).toBeUndefined();
  });

  it('rejects non-base62 characters even at the right length', () => {
    expect(parseKey(`${key.slice(0, 20)}-${key.slice(21)}`)).toBeUndefined();
    expect(parseKey(`${key.slice(0, 20)}é${key.slice(21)}`)).toBeUndefined();
    expect(parseKey(`${key.slice(0, 5)}_${key.slice(6)}`)).toBeUndefined();
  });

  it('rejects surrounding whitespace and the empty string', () => {
    expect(parseKey(` ${key}`)).toBeUndefined();
    expect(parseKey(`${key}\n`)).toBeUndefined();
    expect(parseKey('')).toBeUndefined();
  });
});

describe('redactedKey', () => {
  it('shows the prefix and id but nothing of the secret', () => {
    const { key, id } = generateKey();
    const redacted = redactedKey(id);
    expect(redacted.startsWith(`agw_${id}_`)).toBe(true);
    expect(redacted).not.toContain(key.slice(15, 25));
  });
});
