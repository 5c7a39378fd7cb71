import { describe, expect, it } from 'vitest';
import {
  argumentsDigest,
  RequestStateSeal,
  type SealedState,
} from '../../../gateway/mcp/request-state-seal.js';

const state: SealedState = {
  call: 'c1',
  input: 'input-1',
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
  it('seals with an adopted shared key; what the old key sealed still opens here, not elsewhere', () => {
    const shared = Buffer.alloc(32, 7);
    const a = new RequestStateSeal();
    const beforeSharing = a.seal(state);
    a.adopt(shared);
    const b = new RequestStateSeal();
    b.adopt(shared);
    const sharedState = a.seal(state);
    expect(b.open(sharedState, 0)).toEqual(state);
    expect(a.open(b.seal(state), 0)).toEqual(state);
    expect(a.open(beforeSharing, 0)).toEqual(state);
    expect(b.open(beforeSharing, 0)).toBeUndefined();
  });
  it('digests arguments deterministically and distinguishes different ones', () => {
    expect(argumentsDigest({ a: 1 })).toBe(argumentsDigest({ a: 1 }));
    expect(argumentsDigest({ a: 1 })).not.toBe(argumentsDigest({ a: 2 }));
    expect(argumentsDigest(undefined)).toBe(argumentsDigest({}));
  });
});
