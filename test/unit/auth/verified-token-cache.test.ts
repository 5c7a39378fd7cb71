import { describe, expect, it } from 'vitest';
import { VerifiedTokenCache } from '../../../gateway/auth/verified-token-cache.js';

const verified = (expSeconds: number) => ({
  issuer: 'https://idp.example',
  claims: { sub: 'u', exp: expSeconds },
});

describe('verified JWT cache', () => {
  it('oauth:verified-cache-lifetime — an entry lives until the token expires or maxAge passes, whichever is first', () => {
    const cache = new VerifiedTokenCache(60_000, 10);
    const now = 1_000_000_000_000;
    cache.set('short', verified(now / 1000 + 5), now);
    cache.set('long', verified(now / 1000 + 3600), now);
    expect(cache.get('short', now + 4_999)).toBeDefined();
    expect(cache.get('short', now + 5_000)).toBeUndefined();
    expect(cache.get('long', now + 59_999)).toBeDefined();
    expect(cache.get('long', now + 60_000)).toBeUndefined();
  });

  it('oauth:verified-cache-expired — a token already expired, or without a numeric exp, is not kept', () => {
    const cache = new VerifiedTokenCache();
    const now = 1_000_000_000_000;
    cache.set('old', verified(now / 1000 - 1), now);
    cache.set('odd', { issuer: 'i', claims: { sub: 'u', exp: 'soon' } }, now);
    expect(cache.size).toBe(0);
  });

  it('oauth:verified-cache-bounded — past maxEntries the oldest entry goes; keys are digests, not tokens', () => {
    const cache = new VerifiedTokenCache(60_000, 2);
    const now = 1_000_000_000_000;
    for (const key of ['a', 'b', 'c']) cache.set(key, verified(now / 1000 + 600), now);
    expect(cache.size).toBe(2);
    expect(cache.get('a', now)).toBeUndefined();
    expect(cache.get('c', now)).toBeDefined();
    const token = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ1In0.c2ln';
    const key = VerifiedTokenCache.keyOf(token);
    expect(key).not.toContain(token);
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
