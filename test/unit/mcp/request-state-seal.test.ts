import { describe, expect, it } from 'vitest';
import {
  argumentsDigest,
  RequestStateSeal,
  type SealedState,
} from '../../../gateway/mcp/request-state-seal.js';

const state: SealedState = {
  call: 'c1',
  input: 'input-1',
  workspace: 'demo',
  keyId: 'AbCdEfGhIj',
  tool: 'legacy__ask',
  argsDigest: argumentsDigest({ a: 1 }),
  exp: 2_000,
};

describe('RequestStateSeal', () => {
  it('opens what it sealed until the expiry', () => {
    const seal = new RequestStateSeal();
    const sealed = seal.seal(state);
    expect(RequestStateSeal.isOurs(sealed)).toBe(true);
    expect(seal.open(sealed, 1_999)).toEqual(state);
    expect(seal.open(sealed, 2_000)).toBeUndefined();
  });
  it('rejects a changed payload, a foreign key and garbage', () => {
    const seal = new RequestStateSeal();
    const sealed = seal.seal(state);
    const [prefix, , mac] = sealed.split('.');
    const changed = Buffer.from(JSON.stringify({ ...state, keyId: 'ZZZZZZZZZZ' })).toString('base64url');
    expect(seal.open(`${prefix}.${changed}.${mac}`, 0)).toBeUndefined();
    expect(new RequestStateSeal().open(sealed, 0)).toBeUndefined();
    expect(seal.open('agwb1.not-base64.x', 0)).toBeUndefined();
    expect(seal.open('upstream-state', 0)).toBeUndefined();
  });
  it('security:seal-key-rotation — the first key seals, every key opens; a replica without the old key refuses its states', () => {
    const [oldKey, newKey] = [Buffer.alloc(32, 7), Buffer.alloc(32, 8)];
    const before = new RequestStateSeal([oldKey]);
    const during = new RequestStateSeal([newKey, oldKey]);
    const after = new RequestStateSeal([newKey]);
    const old = before.seal(state);
    const sealed = during.seal(state);
    expect(during.open(old, 0)).toEqual(state);
    expect(after.open(sealed, 0)).toEqual(state);
    expect(before.open(sealed, 0)).toBeUndefined();
    expect(after.open(old, 0)).toBeUndefined();
    expect(() => new RequestStateSeal([])).toThrow();
  });
  it('digests arguments deterministically and distinguishes different ones', () => {
    expect(argumentsDigest({ a: 1 })).toBe(argumentsDigest({ a: 1 }));
    expect(argumentsDigest({ a: 1 })).not.toBe(argumentsDigest({ a: 2 }));
    expect(argumentsDigest(undefined)).toBe(argumentsDigest({}));
  });
});
