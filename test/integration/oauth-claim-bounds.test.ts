// Absurd time claims and empty subjects (issue 37, item 5), on tokens a real issuer's key signed and
// on answers a real introspection endpoint gave (oidc-provider, test/infra/oidc-provider.ts). A
// token with `exp` 1e20 once crashed GET /agent/usage (500, a RangeError building its expiry date);
// now every `exp`, `iat` and `nbf` must be a finite NumericDate within a year of now, `iat` no later
// than the issuer's skew allows, and the subject a non-empty string: otherwise 401 invalid_token
// with the reason in the log.
import { CompactSign, importJWK, SignJWT, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../infra/free-port.js';
import { startAuthServer, type AuthServer } from '../infra/oidc-provider.js';
import { get, startHarness, type Harness } from '../support/gateway-harness.js';
import { findLeaks } from '../support/leak-scan.js';
import {
  clientCredentialsToken,
  introspectingWorkspace,
  introspectionClient,
  machineClient,
} from '../support/oauth-clients.js';

const INTROSPECTION_SECRET = 'claim-bounds-introspection-secret-0123';
const YEAR_S = 366 * 86_400;
let as: AuthServer;
let h: Harness;
let gatewayUrl: string;
let resource: string;
let realKey: CryptoKey;
const presented: string[] = [];

function nowS(): number {
  return Math.floor(Date.now() / 1000);
}

/** A token signed with the issuer's own key: every claim but the ones given is a valid one. */
async function signed(claims: Record<string, unknown>): Promise<string> {
  const token = await new SignJWT({
    iss: as.issuer,
    aud: resource,
    sub: 'alice',
    scope: 'mcp:read',
    iat: nowS(),
    exp: nowS() + 300,
    ...claims,
  })
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'fixture-es256' })
    .sign(realKey);
  presented.push(token);
  return token;
}

/** A token whose payload is exactly `json` (numbers JSON.stringify cannot write, such as 1e400). */
async function signedRaw(json: string): Promise<string> {
  const token = await new CompactSign(new TextEncoder().encode(json))
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'fixture-es256' })
    .sign(realKey);
  presented.push(token);
  return token;
}

function lastReason(): string | undefined {
  const line = [...h.logs].reverse().find((l) => l.includes('"authentication failed"'));
  return line === undefined ? undefined : (JSON.parse(line) as { reason?: string }).reason;
}

async function expectRefused(token: string, reason: string, path = '/agent/usage'): Promise<void> {
  const response = await get(`${gatewayUrl}${path}`, token);
  expect(response.status, `${reason}: ${await response.clone().text()}`).toBe(401);
  expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
  expect(lastReason()).toBe(reason);
}

async function opaqueToken(clientId: string): Promise<string> {
  const token = await clientCredentialsToken(as.issuer, { clientId, resource });
  expect(token.split('.')).toHaveLength(1);
  presented.push(token);
  return token;
}

beforeAll(async () => {
  const port = await freePort();
  gatewayUrl = `http://127.0.0.1:${port}`;
  resource = `${gatewayUrl}/mcp`;
  as = await startAuthServer({
    resources: {
      [resource]: {
        scope: 'mcp:read mcp:write',
        format: 'opaque',
        // A lifetime whose expiry in milliseconds no Date can hold (as `exp` 1e20 was).
        ttlSeconds: (id) => (id === 'opaque-forever' ? 8e15 : 3600),
      },
    },
    clients: [
      machineClient('opaque-normal'),
      machineClient('opaque-forever'),
      machineClient('opaque-nobody'),
      introspectionClient('gateway', INTROSPECTION_SECRET),
    ],
    // An introspection answer with an empty subject.
    tokenClaims: (_account, clientId) => (clientId === 'opaque-nobody' ? { sub: '' } : {}),
  });
  realKey = (await importJWK(as.signingKey, 'ES256')) as CryptoKey;
  h = await startHarness(
    {
      server: { host: '127.0.0.1', port, publicUrl: gatewayUrl },
      // The shared resource (/mcp, /agent/*) admits tokens for the default workspace only (D24).
      oauth: { defaultWorkspace: 'claims' },
      workspaces: [introspectingWorkspace('claims', as.issuer, 'anyone')],
    },
    { AGW_INTROSPECTION_SECRET: INTROSPECTION_SECRET },
  );
}, 60_000);

afterAll(async () => {
  await h?.stop();
  await as?.stop();
});

describe('time claims of JWT access tokens', () => {
  it('oauth:claim-bounds-control — a token with sane claims reads its usage, expiry included', async () => {
    const exp = nowS() + 300;
    const response = await get(`${gatewayUrl}/agent/usage?response_format=json`, await signed({ exp }));
    expect(response.status).toBe(200);
    const body = (await response.json()) as { key: { expires_at: string } };
    expect(body.key.expires_at).toBe(new Date(exp * 1000).toISOString());
  });

  it('oauth:absurd-exp-usage — a validly signed token with exp 1e20 (or 1e400) is refused with 401, not a 500 on GET /agent/usage', async () => {
    await expectRefused(await signed({ exp: 1e20 }), 'bad-time-claim');
    const claims = `"iss":"${as.issuer}","aud":"${resource}","sub":"alice","iat":${nowS()}`;
    await expectRefused(await signedRaw(`{${claims},"exp":1e400}`), 'bad-time-claim');
  });

  it('oauth:time-claim-bounds — exp more than a year ahead, or iat/nbf more than a year away, is refused', async () => {
    await expectRefused(await signed({ exp: nowS() + 2 * YEAR_S }), 'bad-time-claim');
    await expectRefused(await signed({ iat: nowS() - 2 * YEAR_S }), 'bad-time-claim');
    await expectRefused(await signed({ iat: -1 }), 'bad-time-claim');
    await expectRefused(await signed({ nbf: 0 }), 'bad-time-claim');
    // Just inside the bounds: accepted.
    const near = await signed({ exp: nowS() + YEAR_S - 60, nbf: nowS() - 60, iat: nowS() - 60 });
    expect((await get(`${gatewayUrl}/agent/usage`, near)).status).toBe(200);
  });

  it('oauth:iat-future — iat later than the issuer’s clock skew allows is refused; within the skew it is accepted', async () => {
    await expectRefused(await signed({ iat: nowS() + 120 }), 'issued-in-future');
    await expectRefused(await signed({ iat: 1e20 }), 'bad-time-claim');
    expect((await get(`${gatewayUrl}/agent/usage`, await signed({ iat: nowS() + 10 }))).status).toBe(200);
  });

  it('oauth:empty-subject — an empty sub, a non-string sub, or no sub and an empty client_id is refused', async () => {
    await expectRefused(await signed({ sub: '' }), 'missing-claims');
    await expectRefused(await signed({ sub: 42, client_id: 'machine' }), 'missing-claims');
    await expectRefused(await signed({ sub: undefined, client_id: '' }), 'missing-claims');
    // A machine token (client_id, no sub) is still a subject.
    expect(
      (await get(`${gatewayUrl}/agent/usage`, await signed({ sub: undefined, client_id: 'robot' }))).status,
    ).toBe(200);
  });
});

describe('time claims of introspection answers', () => {
  it('oauth:introspection-claim-bounds — an active answer with an absurd exp or an empty sub is refused', async () => {
    expect((await get(`${gatewayUrl}/agent/usage`, await opaqueToken('opaque-normal'))).status).toBe(200);
    await expectRefused(await opaqueToken('opaque-forever'), 'bad-time-claim');
    await expectRefused(await opaqueToken('opaque-nobody'), 'missing-claims');
    // Refused again from the cache, with no second call.
    const token = presented.at(-1) ?? '';
    const calls = as.requests.get('/token/introspection') ?? 0;
    await expectRefused(token, 'missing-claims');
    expect(as.requests.get('/token/introspection') ?? 0).toBe(calls);
  });

  it('oauth:claim-bounds-no-leak — no presented token reaches the log', () => {
    expect(presented.length).toBeGreaterThan(10);
    const needles = presented.map((value, i) => ({ label: `token ${i}`, value, windows: false }));
    expect(findLeaks(h.logs, needles)).toEqual([]);
  });
});
