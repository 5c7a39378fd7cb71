import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { processSecretReader, type UpstreamCredential } from '../../../gateway/config/index.js';
import { capAt, issuedToken, TokenCache } from '../../../gateway/connections/index.js';
import { UpstreamTokens } from '../../../gateway/upstream/token-source.js';
import {
  runAsCaller,
  upstreamCallerOf,
  type CallerIdentity,
} from '../../../gateway/upstream/upstream-caller.js';
import { basicAuthorization, formEncode } from '../../../gateway/connections/index.js';

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('TokenCache', () => {
  it('upstream-oauth:cache-refresh-margin — a token is reused until a tenth of its life (at most 30 s) before expiry', async () => {
    const time = clock();
    const cache = new TokenCache(10, time.now);
    let issued = 0;
    const issue = () => Promise.resolve(issuedToken(`t${(issued += 1)}`, 100_000, time.now()));
    expect(await cache.get('k', issue)).toBe('t1');
    time.advance(89_999);
    expect(await cache.get('k', issue)).toBe('t1');
    time.advance(1);
    expect(await cache.get('k', issue)).toBe('t2');
    const long = issuedToken('x', 3_600_000, 0);
    expect(long.expiresAtMs - long.refreshAtMs).toBe(30_000);
  });

  it('upstream-oauth:cache-single-flight — concurrent misses share one request', async () => {
    const cache = new TokenCache(10);
    let issued = 0;
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const issue = async () => {
      issued += 1;
      await gate;
      return issuedToken('shared', 60_000, Date.now());
    };
    const waiting = Array.from({ length: 100 }, () => cache.get('k', issue));
    release();
    expect(new Set(await Promise.all(waiting))).toEqual(new Set(['shared']));
    expect(issued).toBe(1);
  });

  it('upstream-oauth:cache-refused — a refused token is dropped once, only if it is still the cached one', async () => {
    const cache = new TokenCache(10);
    let issued = 0;
    const issue = () => Promise.resolve(issuedToken(`t${(issued += 1)}`, 60_000, Date.now()));
    await cache.get('k', issue);
    cache.refused('k', 't1');
    expect(await cache.get('k', issue)).toBe('t2');
    cache.refused('k', 't1');
    expect(await cache.get('k', issue)).toBe('t2');
    expect(issued).toBe(2);
  });

  it('upstream-oauth:cache-bounded — the least recently used entry goes first', async () => {
    const cache = new TokenCache(2);
    const issue = (value: string) => () => Promise.resolve(issuedToken(value, 60_000, Date.now()));
    await cache.get('a', issue('a1'));
    await cache.get('b', issue('b1'));
    await cache.get('a', issue('unused'));
    await cache.get('c', issue('c1'));
    expect(cache.size).toBe(2);
    expect(await cache.get('a', issue('a2'))).toBe('a1');
    expect(await cache.get('b', issue('b2'))).toBe('b2');
  });

  it('upstream-oauth:cache-failure — a failed refresh hands out the unexpired token, an expired one fails', async () => {
    const time = clock();
    const cache = new TokenCache(10, time.now);
    await cache.get('k', () => Promise.resolve(issuedToken('old', 10_000, time.now())));
    time.advance(9_500);
    const failing = () => Promise.reject(new Error('authorization server down'));
    expect(await cache.get('k', failing)).toBe('old');
    time.advance(600);
    await expect(cache.get('k', failing)).rejects.toThrow(/down/);
  });
});

describe('client_secret_basic', () => {
  it('upstream-oauth:basic-encoding — id and secret are form-encoded before Base64 (RFC 6749 §2.3.1)', () => {
    expect(formEncode('gw:upstream')).toBe('gw%3Aupstream');
    expect(formEncode('a b+c/%')).toBe('a+b%2Bc%2F%25');
    const header = basicAuthorization('gw:upstream', 'p@ss w:rd');
    const decoded = Buffer.from(header.slice('Basic '.length), 'base64').toString('utf8');
    expect(decoded).toBe('gw%3Aupstream:p%40ss+w%3Ard');
  });
});

describe('exchanged tokens end with the caller token', () => {
  it('upstream-oauth:cap-at-caller-exp — capAt shortens a token to the caller token exp, never lengthens it', () => {
    const token = issuedToken('t', 3_600_000, 0);
    expect(capAt(token, undefined)).toBe(token);
    expect(capAt(token, 7_200_000)).toBe(token);
    expect(capAt(token, 60_000)).toEqual({ value: 't', expiresAtMs: 60_000, refreshAtMs: 60_000 });
    expect(capAt(token, 3_590_000)).toEqual({ value: 't', expiresAtMs: 3_590_000, refreshAtMs: 3_570_000 });
  });

  it('upstream-oauth:exchange-capped — an exchanged token is not reused past the caller token exp; a fresh caller token gets a new exchange', async () => {
    const time = clock(1_000_000_000);
    const subjectTokens: string[] = [];
    // The authorization server's twin, in place of the pool's fetch.
    const asTwin = (_url: unknown, init?: RequestInit) => {
      subjectTokens.push(new URLSearchParams(init?.body as string).get('subject_token') ?? '');
      const body = {
        access_token: `exchanged-${subjectTokens.length}`,
        token_type: 'Bearer',
        expires_in: 3600,
      };
      return Promise.resolve(
        new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } }),
      );
    };
    const tokens = new UpstreamTokens({
      secrets: { readEnv: () => 'x', readFile: () => 'x' },
      now: time.now,
      authorizationServers: { fetchFor: () => asTwin },
    });
    const credential = {
      type: 'tokenExchange',
      tokenEndpoint: 'https://as.example/token',
      clientId: { env: 'ID' },
      clientSecret: { env: 'SECRET' },
      authMethod: 'client_secret_basic',
      scopes: [],
    } as UpstreamCredential;
    const source = tokens.forCredential(credential, {
      workspace: 'w',
      source: 's',
      url: 'https://up.example/mcp',
    });
    const caller = (token: string, expiresAtMs: number) => {
      const identity: CallerIdentity = {
        issuer: 'https://idp.example',
        subject: 'alice',
        scopes: ['mcp:read'],
        expiresAtMs,
        token,
      };
      return { identity, kind: 'oidc' as const };
    };
    const headersAs = (token: string, exp: number) => runAsCaller(caller(token, exp), () => source.headers());

    // The caller token ends in 5 minutes; the exchanged one would live an hour.
    const firstExp = time.now() + 300_000;
    expect(await headersAs('caller-1', firstExp)).toEqual({ authorization: 'Bearer exchanged-1' });
    time.advance(299_000);
    expect(await headersAs('caller-1', firstExp)).toEqual({ authorization: 'Bearer exchanged-1' });
    time.advance(1_000);
    // The old caller token has expired: the same subject and scopes with a fresh token exchange again.
    const secondExp = time.now() + 300_000;
    expect(await headersAs('caller-2', secondExp)).toEqual({ authorization: 'Bearer exchanged-2' });
    expect(subjectTokens).toEqual(['caller-1', 'caller-2']);

    // The principal's verified exp reaches the identity the exchange reads.
    const principal = {
      keyId: 'oidc:x',
      workspace: { name: 'w' },
      oidc: { issuer: 'i', subject: 's', scopes: [], expiresAtMs: 42_000 },
    };
    Object.defineProperty(principal, Symbol.for('agent-gateway.caller-token'), {
      value: { reveal: () => 'caller-3' },
      enumerable: false,
    });
    expect(upstreamCallerOf(principal).identity?.expiresAtMs).toBe(42_000);
  });
});

describe('a rotated client secret', () => {
  it('upstream-oauth:secret-rotation — a new client secret takes effect at the next hop, not when the cached token expires', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agw-rotation-'));
    const secretFile = join(dir, 'client-secret');
    await writeFile(secretFile, 'first-secret-0123456789\n');
    const seen: string[] = [];
    // The authorization server's twin: one token per request, naming the secret it was asked with.
    const asTwin = (_url: unknown, init?: RequestInit) => {
      const basic = new Headers(init?.headers).get('authorization') ?? '';
      const secret = Buffer.from(basic.slice('Basic '.length), 'base64').toString('utf8').split(':')[1] ?? '';
      seen.push(secret);
      const body = { access_token: `token-${seen.length}`, token_type: 'Bearer', expires_in: 3600 };
      return Promise.resolve(
        new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } }),
      );
    };
    const tokens = new UpstreamTokens({
      secrets: processSecretReader({ UP_ID: 'gateway-client' }),
      authorizationServers: { fetchFor: () => asTwin },
    });
    const credential = {
      type: 'oauthClientCredentials',
      tokenEndpoint: 'https://as.example/token',
      clientId: { env: 'UP_ID' },
      clientSecret: { file: secretFile },
      authMethod: 'client_secret_basic',
      scopes: [],
    } as UpstreamCredential;
    const source = tokens.forCredential(credential, { workspace: 'w', source: 's', url: 'https://up/mcp' });
    try {
      expect(await source.headers()).toEqual({ authorization: 'Bearer token-1' });
      expect(await source.headers()).toEqual({ authorization: 'Bearer token-1' });
      // The mounted Secret changes (or the file a reloaded config names): the next hop asks anew.
      await writeFile(secretFile, 'second-secret-0123456789\n');
      expect(await source.headers()).toEqual({ authorization: 'Bearer token-2' });
      expect(await source.headers()).toEqual({ authorization: 'Bearer token-2' });
      expect(seen).toEqual(['first-secret-0123456789', 'second-secret-0123456789']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
