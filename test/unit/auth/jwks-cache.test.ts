// The JWKS cache (gateway/auth/jwks-cache.ts) against an in-memory authorization server twin: a
// fetch that serves a key set from memory, counts requests and can hold them open, and a manual
// clock. One fetch in flight however many requests wait; an unknown kid refetches at most once per
// cooldown; stale keys serve during a refresh and survive a failed one; answers are bounded in size
// and key count, and only asymmetric public signing keys are kept.
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { JwksCache, JwksUnavailableError } from '../../../gateway/auth/jwks-cache.js';

const JWKS_URL = 'https://id.example/jwks';

interface JwksTwin {
  readonly fetch: typeof fetch;
  /** Requests received so far. */
  requests: number;
  keys: unknown[];
  /** Answer with this status instead of the keys. */
  status: number;
  /** While set, requests wait for `release()`. */
  hold(): void;
  release(): void;
}

function jwksTwin(keys: unknown[]): JwksTwin {
  let gate: { promise: Promise<void>; resolve: () => void } | undefined;
  const twin: JwksTwin = {
    requests: 0,
    keys,
    status: 200,
    fetch: async (input) => {
      twin.requests += 1;
      expect(input instanceof Request ? input.url : input instanceof URL ? input.href : input).toBe(JWKS_URL);
      if (gate !== undefined) await gate.promise;
      return new Response(JSON.stringify({ keys: twin.keys }), {
        status: twin.status,
        headers: { 'content-type': 'application/json' },
      });
    },
    hold() {
      let resolve = () => undefined as void;
      const promise = new Promise<void>((done) => (resolve = done));
      gate = { promise, resolve };
    },
    release() {
      gate?.resolve();
      gate = undefined;
    },
  };
  return twin;
}

function clock() {
  let at = 1_000_000;
  return { now: () => at, advance: (ms: number) => (at += ms) };
}

function cache(
  twin: JwksTwin,
  time: ReturnType<typeof clock>,
  extra: Partial<{ maxKeys: number; maxBytes: number; cooldownMs: number; maxAgeMs: number }> = {},
) {
  return new JwksCache({
    uri: () => Promise.resolve(JWKS_URL),
    bounds: { fetch: twin.fetch, timeoutMs: 1000, maxBytes: extra.maxBytes ?? 65_536 },
    maxKeys: extra.maxKeys ?? 10,
    cooldownMs: extra.cooldownMs ?? 30_000,
    maxAgeMs: extra.maxAgeMs ?? 600_000,
    now: time.now,
  });
}

async function publicKey(kid: string): Promise<JWK> {
  const { publicKey: key } = await generateKeyPair('ES256', { extractable: true });
  return { ...(await exportJWK(key)), kid, alg: 'ES256', use: 'sig' };
}

const header = (kid: string) => ({ alg: 'ES256', kid });
let first: JWK;
let rotated: JWK;

beforeAll(async () => {
  first = await publicKey('k1');
  rotated = await publicKey('k2');
});

describe('fetching and single flight', () => {
  it('oauth:jwks-single-flight — 100 requests on a cold cache cause one fetch and all get the key', async () => {
    const twin = jwksTwin([first]);
    const jwks = cache(twin, clock());
    twin.hold();
    const pending = Array.from({ length: 100 }, () => jwks.resolve(header('k1')));
    await new Promise((resolve) => setTimeout(resolve, 10));
    twin.release();
    const keys = await Promise.all(pending);
    expect(new Set(keys).size).toBe(1);
    expect(twin.requests).toBe(1);
    expect(jwks.fetches).toBe(1);
    await jwks.resolve(header('k1'));
    expect(twin.requests).toBe(1);
  });

  it('oauth:jwks-unknown-kid-waits — unknown kids arriving during a fetch wait for it, and find a rotated key', async () => {
    const twin = jwksTwin([first]);
    const time = clock();
    const jwks = cache(twin, time);
    await jwks.resolve(header('k1'));
    time.advance(30_000);
    twin.keys = [first, rotated];
    twin.hold();
    const pending = Array.from({ length: 50 }, () => jwks.resolve(header('k2')));
    await new Promise((resolve) => setTimeout(resolve, 10));
    twin.release();
    await Promise.all(pending);
    expect(twin.requests).toBe(2);
  });
});

describe('cooldown', () => {
  it('oauth:jwks-cooldown — 1,000 unknown kids within the cooldown cost at most one fetch; after it, one more', async () => {
    const twin = jwksTwin([first]);
    const time = clock();
    const jwks = cache(twin, time, { cooldownMs: 30_000 });
    await jwks.resolve(header('k1'));
    time.advance(30_000);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 1000 }, (_, i) => jwks.resolve(header(`random-${i}`))),
    );
    expect(outcomes.every((o) => o.status === 'rejected')).toBe(true);
    expect(twin.requests).toBe(2);
    // Still within the cooldown of that fetch: refused with no fetch.
    time.advance(29_999);
    await expect(jwks.resolve(header('random-x'))).rejects.toThrow();
    expect(twin.requests).toBe(2);
    // The issuer rotates; once the cooldown has passed the new kid is fetched once.
    twin.keys = [rotated];
    time.advance(1);
    await expect(jwks.resolve(header('k2'))).resolves.toBeDefined();
    expect(twin.requests).toBe(3);
  });

  it('oauth:jwks-rotation-within-cooldown — a rotated kid inside the cooldown is refused until it ends', async () => {
    const twin = jwksTwin([first]);
    const time = clock();
    const jwks = cache(twin, time, { cooldownMs: 5_000 });
    await jwks.resolve(header('k1'));
    twin.keys = [first, rotated];
    time.advance(1_000);
    await expect(jwks.resolve(header('k2'))).rejects.toThrow();
    expect(twin.requests).toBe(1);
    time.advance(4_000);
    await expect(jwks.resolve(header('k2'))).resolves.toBeDefined();
    expect(twin.requests).toBe(2);
  });
});

describe('staleness and failure', () => {
  it('oauth:jwks-stale-serves — keys past maxAge still serve while one background refresh runs; a failed one keeps them', async () => {
    const twin = jwksTwin([first]);
    const time = clock();
    const jwks = cache(twin, time, { maxAgeMs: 60_000, cooldownMs: 1_000 });
    await jwks.resolve(header('k1'));
    time.advance(60_001);
    twin.status = 503;
    await expect(jwks.resolve(header('k1'))).resolves.toBeDefined();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(twin.requests).toBe(2);
    // The failed refresh kept the keys; the next attempt waits for the cooldown.
    await expect(jwks.resolve(header('k1'))).resolves.toBeDefined();
    expect(twin.requests).toBe(2);
  });

  it('oauth:jwks-unavailable — no keys ever fetched: refused with the reason, retried at most once a second', async () => {
    const twin = jwksTwin([first]);
    twin.status = 500;
    const time = clock();
    const jwks = cache(twin, time);
    await expect(jwks.resolve(header('k1'))).rejects.toThrow(JwksUnavailableError);
    await expect(jwks.resolve(header('k1'))).rejects.toMatchObject({ failure: 'status' });
    expect(twin.requests).toBe(1);
    time.advance(1_000);
    twin.status = 200;
    await expect(jwks.resolve(header('k1'))).resolves.toBeDefined();
    expect(twin.requests).toBe(2);
  });
});

describe('bounds', () => {
  it('oauth:jwks-bounds-keys — a set with more keys than allowed is refused whole', async () => {
    const many = await Promise.all(Array.from({ length: 4 }, (_, i) => publicKey(`m${i}`)));
    const jwks = cache(jwksTwin(many), clock(), { maxKeys: 3 });
    await expect(jwks.resolve(header('m0'))).rejects.toMatchObject({ failure: 'too-many-keys' });
  });

  it('oauth:jwks-bounds-size — an answer over the byte bound is refused', async () => {
    const jwks = cache(jwksTwin([first, rotated]), clock(), { maxBytes: 200 });
    await expect(jwks.resolve(header('k1'))).rejects.toMatchObject({ failure: 'too-large' });
  });

  it('oauth:jwks-public-signing-only — symmetric, private and encryption keys are dropped', async () => {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const keys = [
      first,
      { kty: 'oct', k: 'c2VjcmV0LXNlY3JldC1zZWNyZXQ', kid: 'hmac', alg: 'HS256' },
      { ...(await exportJWK(privateKey)), kid: 'private', alg: 'ES256' },
      { ...rotated, kid: 'enc', use: 'enc' },
    ];
    const jwks = cache(jwksTwin(keys), clock());
    await expect(jwks.resolve(header('k1'))).resolves.toBeDefined();
    await expect(jwks.resolve({ alg: 'HS256', kid: 'hmac' })).rejects.toThrow();
    await expect(jwks.resolve(header('private'))).rejects.toThrow();
    await expect(jwks.resolve(header('enc'))).rejects.toThrow();
  });
});
