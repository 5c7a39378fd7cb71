// Tokens for upstreams (issue 29): OAuth client credentials against a real authorization server
// (oidc-provider, test/infra/oidc-provider.ts) to upstreams that check their own audience against
// its JWKS (a 2026 server through the relay, a 2025 sessionful server through the SDK client), and
// an HTTP data source; cached, single-flight, refreshed before expiry and once on a 401; the
// authorization server down, slow or answering garbage; a token endpoint the tenant policy denies;
// RFC 8693 exchange keeping the user as `sub`. No secret or token in logs or error messages.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthServer, type AuthServer } from '../infra/oidc-provider.js';
import { startLegacySessionfulServer } from '../fixtures/upstreams/legacy-sessionful-server.js';
import { startModernServer } from '../fixtures/upstreams/modern-server.js';
import type { RunningUpstream } from '../fixtures/upstreams/http-bridge.js';
import { httpSource, keyRecord, newKey } from '../support/gateway-document.js';
import { startHarness, type Harness } from '../support/gateway-harness.js';
import { rpcCall, type RpcAnswer } from '../support/mcp-clients.js';
import { findLeaks } from '../support/leak-scan.js';
import { machineClient } from '../support/oauth-clients.js';
import { until } from '../support/until.js';
import {
  mintUserToken,
  tokenExchangeGrant,
  upstreamGate,
  TOKEN_EXCHANGE,
  type ExchangeRecord,
  type UpstreamGate,
} from '../support/upstream-oauth.js';
import { processSecretReader, type UpstreamCredential } from '../../gateway/config/index.js';
import { runAsCaller, UpstreamTokens, UpstreamPool } from '../../gateway/upstream/index.js';
import { createPinoLogger } from '../../gateway/telemetry/index.js';
import { McpSourceSchema } from '../../gateway/config/index.js';

// A client id with ':' and a secret with every character Basic credentials must form-encode.
const BASIC_ID = 'gw:upstream';
const BASIC_SECRET = 'p@ss w:rd/+%&=~!*()';
const POST_ID = 'gw-post';
const POST_SECRET = 'post-secret-Zq7v9x';
const GATEWAY_AUDIENCE = 'http://127.0.0.1:1/mcp';

const key = newKey();
const resources: Record<string, { scope: string; ttlSeconds?: number }> = {};
const exchanges: ExchangeRecord[] = [];
let as: AuthServer;
let h: Harness;
let modern: RunningUpstream;
let legacy: RunningUpstream;
let shortLived: RunningUpstream;
let exchanged: RunningUpstream;
const gates: Record<string, UpstreamGate> = {};
let slow: Server;
let garbage: Server;
let api: Server;
let apiGate: UpstreamGate;

function port(server: Server): number {
  return (server.address() as AddressInfo).port;
}

async function listenOn(handler: Parameters<typeof createServer>[1]): Promise<Server> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

const tokenRequests = () => as.requests.get('/token') ?? 0;

function call(source: string, text = 'hi'): Promise<RpcAnswer> {
  return rpcCall(h.url, key.key, 'tools/call', { name: `${source}__echo`, arguments: { text } });
}

function gated(name: string) {
  return { authorize: (authorization: string | undefined) => gates[name]!.authorize(authorization) };
}

const client = (extra: Record<string, unknown> = {}) => ({
  type: 'oauthClientCredentials',
  clientId: { env: 'UP_CLIENT_ID' },
  clientSecret: { env: 'UP_CLIENT_SECRET' },
  ...extra,
});

beforeAll(async () => {
  modern = await startModernServer(gated('modern'));
  legacy = await startLegacySessionfulServer(gated('legacy'));
  shortLived = await startModernServer(gated('short'));
  exchanged = await startModernServer(gated('exchanged'));
  api = await listenOn((req, res) => {
    void apiGate.authorize(req.headers.authorization).then((ok) => {
      res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
      res.end(
        ok
          ? JSON.stringify([{ id: 'k1', title: 'Kestrel runbook', body: 'The kestrel queue drains hourly.' }])
          : '{}',
      );
    });
  });
  const apiUrl = `http://127.0.0.1:${port(api)}/items`;
  resources[modern.url] = { scope: 'tools:read' };
  resources[legacy.url] = { scope: 'tools:read' };
  resources[shortLived.url] = { scope: 'tools:read', ttlSeconds: 2 };
  resources[exchanged.url] = { scope: 'tools:read' };
  resources[apiUrl] = { scope: 'items:read' };
  as = await startAuthServer({
    resources,
    scopes: ['tools:read', 'items:read'],
    clients: [
      machineClient(BASIC_ID, BASIC_SECRET, {
        grant_types: ['client_credentials', TOKEN_EXCHANGE],
        token_endpoint_auth_method: 'client_secret_basic',
      }),
      machineClient(POST_ID, POST_SECRET, { token_endpoint_auth_method: 'client_secret_post' }),
    ],
    configure: tokenExchangeGrant({ server: () => as, subjectAudience: GATEWAY_AUDIENCE, exchanges }),
  });
  for (const [name, upstream] of Object.entries({ modern, legacy, short: shortLived, exchanged }))
    gates[name] = upstreamGate(as.issuer, upstream.url);
  apiGate = upstreamGate(as.issuer, apiUrl);
  slow = await listenOn(() => undefined);
  garbage = await listenOn((req, res) => {
    res.writeHead(200, { 'content-type': req.url === '/token' ? 'application/json' : 'text/html' });
    res.end(req.url === '/token' ? '{"token_type":"Bearer"}' : '<html>not json</html>');
  });
  const closed = await listenOn(() => undefined);
  const closedPort = port(closed);
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  h = await startHarness(
    {
      // Loopback is denied by the built-in ranges; 127.0.0.1 is let through, 127.0.0.2 is not.
      policy: { network: { allow: { cidrs: ['127.0.0.1/32'] } } },
      workspaces: [
        {
          name: 'acme',
          keys: [keyRecord(key, { access: 'write' })],
          mcpSources: [
            // Endpoint from the issuer's metadata, client_secret_basic.
            httpSource('modern', modern.url, {
              credential: client({ issuer: as.issuer, scopes: ['tools:read'] }),
            }),
            httpSource('legacy', legacy.url, {
              credential: {
                ...client({ tokenEndpoint: `${as.issuer}/token`, authMethod: 'client_secret_post' }),
                clientId: { env: 'POST_CLIENT_ID' },
                clientSecret: { env: 'POST_CLIENT_SECRET' },
              },
            }),
            httpSource('short', shortLived.url, {
              credential: client({ issuer: as.issuer }),
            }),
            httpSource('asdown', modern.url, {
              credential: client({ tokenEndpoint: `http://127.0.0.1:${closedPort}/token` }),
            }),
            httpSource('asslow', modern.url, {
              timeouts: { connectMs: 500 },
              credential: client({ tokenEndpoint: `http://127.0.0.1:${port(slow)}/token` }),
            }),
            httpSource('asgarbage', modern.url, {
              credential: client({ tokenEndpoint: `http://127.0.0.1:${port(garbage)}/token` }),
            }),
            httpSource('asnometa', modern.url, {
              credential: client({ issuer: `http://127.0.0.1:${port(garbage)}` }),
            }),
            httpSource('asdenied', modern.url, {
              credential: client({ tokenEndpoint: `http://127.0.0.2:${port(slow)}/token` }),
            }),
            httpSource('badsecret', modern.url, {
              credential: { ...client({ issuer: as.issuer }), clientSecret: { env: 'WRONG_SECRET' } },
            }),
            httpSource('exchanged', exchanged.url, {
              credential: { ...client({ issuer: as.issuer }), type: 'tokenExchange' },
            }),
          ],
          dataSources: [
            {
              name: 'api',
              type: 'http',
              url: apiUrl,
              credential: client({ tokenEndpoint: `${as.issuer}/token` }),
              fields: { id: 'id', title: 'title', body: 'body' },
            },
          ],
        },
      ],
    },
    {
      UP_CLIENT_ID: BASIC_ID,
      UP_CLIENT_SECRET: BASIC_SECRET,
      POST_CLIENT_ID: POST_ID,
      POST_CLIENT_SECRET: POST_SECRET,
      WRONG_SECRET: 'not-the-secret-Yt5',
    },
  );
}, 60_000);

afterAll(async () => {
  await h?.stop();
  for (const upstream of [modern, legacy, shortLived, exchanged]) await upstream?.close();
  for (const server of [slow, garbage, api]) {
    server?.closeAllConnections();
    server?.close();
  }
  await as?.stop();
});

function errorOf(answer: RpcAnswer): { code?: string; class?: string } {
  return answer.error?.data ?? {};
}

describe('OAuth client credentials for MCP sources', () => {
  it('upstream-oauth:client-credentials — a 2026 (relay) and a 2025 (SDK) upstream get tokens for their own audience', async () => {
    const answers = await Promise.all([call('modern', 'one'), call('legacy', 'two')]);
    expect(answers.map((a) => a.result?.['content'])).toEqual([
      [{ type: 'text', text: 'one' }],
      [{ type: 'text', text: 'two' }],
    ]);
    for (const [name, upstream] of [
      ['modern', modern],
      ['legacy', legacy],
    ] as const) {
      const last = gates[name]!.accepted.at(-1);
      expect(last?.aud).toBe(upstream.url);
      expect(last?.['client_id']).toBe(name === 'modern' ? BASIC_ID : POST_ID);
      // The caller's API key never travels upstream.
      expect(upstream.log.some((r) => r.authorization?.includes(key.key) === true)).toBe(false);
    }
    expect(gates['modern']!.accepted.at(-1)?.['scope']).toBe('tools:read');
  });

  it('upstream-oauth:cached — many calls, no new token request', async () => {
    await call('modern');
    const before = tokenRequests();
    for (let i = 0; i < 10; i += 1)
      expect((await call(i % 2 === 0 ? 'modern' : 'legacy')).result).toBeDefined();
    expect(tokenRequests()).toBe(before);
  });

  it('upstream-oauth:refresh-before-expiry — a 2 s token is replaced shortly before it expires', async () => {
    expect((await call('short')).result).toBeDefined();
    const first = gates['short']!.accepted.at(-1)?.jti;
    const before = tokenRequests();
    expect((await call('short')).result).toBeDefined();
    expect(tokenRequests()).toBe(before);
    await new Promise((resolve) => setTimeout(resolve, 1850));
    expect((await call('short')).result).toBeDefined();
    expect(tokenRequests()).toBe(before + 1);
    expect(gates['short']!.accepted.at(-1)?.jti).not.toBe(first);
  });

  it.each(['modern', 'legacy'])(
    'upstream-oauth:401-refresh — %s: one 401 costs one new token and the call succeeds',
    async (name) => {
      await call(name);
      const before = tokenRequests();
      gates[name]!.refuseNext(1);
      const answer = await call(name, 'again');
      expect(answer.result?.['content']).toEqual([{ type: 'text', text: 'again' }]);
      expect(tokenRequests()).toBe(before + 1);
    },
  );

  it.each(['modern', 'legacy'])(
    'upstream-oauth:401-twice — %s: reported as upstream_authorization after one refresh',
    async (name) => {
      await call(name);
      const before = tokenRequests();
      gates[name]!.refuseNext(2);
      const answer = await call(name);
      expect(errorOf(answer)).toMatchObject({
        code: 'upstream_unauthorized',
        class: 'upstream_authorization',
      });
      expect(tokenRequests()).toBe(before + 1);
      expect((await call(name)).result).toBeDefined();
    },
  );

  it('upstream-oauth:wrong-client-secret — refused at the token endpoint: upstream_token_unavailable', async () => {
    const answer = await call('badsecret');
    expect(errorOf(answer)).toMatchObject({
      code: 'upstream_token_unavailable',
      class: 'upstream_authorization',
    });
  });

  it.each([
    ['asdown', 'down'],
    ['asslow', 'slow'],
    ['asgarbage', 'garbage'],
    ['asnometa', 'no metadata'],
  ])(
    'upstream-oauth:as-failure — %s (%s): upstream_token_unavailable, nothing sent upstream',
    async (source) => {
      const before = modern.log.length;
      const started = Date.now();
      const answer = await call(source);
      expect(errorOf(answer)).toMatchObject({
        code: 'upstream_token_unavailable',
        class: 'upstream_authorization',
      });
      expect(Date.now() - started).toBeLessThan(5000);
      expect(modern.log.length).toBe(before);
    },
  );

  it('upstream-oauth:token-endpoint-reach — a token endpoint on a denied address is never dialled', async () => {
    const answer = await call('asdenied');
    expect(errorOf(answer)).toMatchObject({ code: 'upstream_not_allowed' });
    // Allowed, the dial would have been refused (nothing listens on 127.0.0.2): upstream_token_unavailable.
    expect(JSON.stringify(answer)).not.toContain('upstream_token_unavailable');
  });

  it('upstream-oauth:exchange-api-key — a token-exchange source called with an API key fails clearly, never falls back', async () => {
    const before = exchanged.log.length;
    const answer = await call('exchanged');
    expect(errorOf(answer)).toMatchObject({
      code: 'upstream_identity_required',
      class: 'upstream_authorization',
    });
    expect(answer.error?.message).toMatch(/sign in with the identity provider/);
    expect(exchanged.log.length).toBe(before);
  });
});

describe('OAuth client credentials for an HTTP data source', () => {
  it('upstream-oauth:http-datasource — the sync fetches with a token for the endpoint', async () => {
    const state = await until('the api source to sync', async () => {
      const body = (await (
        await fetch(`${h.url}/agent/sources?response_format=json`, {
          headers: { authorization: `Bearer ${key.key}` },
        })
      ).json()) as { sources: Record<string, unknown>[] };
      const found = body.sources.find((s) => s['id'] === 'api');
      return found?.['status'] === 'ready' ? found : undefined;
    });
    expect(state['documents']).toBe(1);
    expect(apiGate.accepted.at(-1)?.['client_id']).toBe(BASIC_ID);
  });
});

describe('token cache and exchange against the real authorization server', () => {
  const secrets = processSecretReader({ UP_CLIENT_ID: BASIC_ID, UP_CLIENT_SECRET: BASIC_SECRET });
  const credential = (extra: Record<string, unknown>): UpstreamCredential =>
    ({
      ...client({ tokenEndpoint: `${as.issuer}/token` }),
      authMethod: 'client_secret_basic',
      scopes: [],
      ...extra,
    }) as UpstreamCredential;

  it('upstream-oauth:single-flight — 50 concurrent hops, one token request', async () => {
    const tokens = new UpstreamTokens({ secrets });
    const source = tokens.forCredential(credential({}), { workspace: 'w', source: 's', url: modern.url });
    const before = tokenRequests();
    const all = await Promise.all(Array.from({ length: 50 }, () => source.headers()));
    expect(new Set(all.map((h) => h['authorization'])).size).toBe(1);
    expect(tokenRequests()).toBe(before + 1);
  });

  it('upstream-oauth:exchange-keeps-sub — the exchanged token names the user as sub and the gateway as actor', async () => {
    const tokens = new UpstreamTokens({ secrets });
    const source = tokens.forCredential(credential({ type: 'tokenExchange' }), {
      workspace: 'w',
      source: 'x',
      url: exchanged.url,
    });
    const userToken = await mintUserToken(as, { sub: 'alice@example.com', aud: GATEWAY_AUDIENCE });
    const caller = {
      kind: 'oidc' as const,
      identity: { issuer: as.issuer, subject: 'alice@example.com', token: userToken },
    };
    const headers = await runAsCaller(caller, () => source.headers());
    const token = headers['authorization']!.slice('Bearer '.length);
    expect(token).not.toBe(userToken);
    const claims = decodeJwt(token);
    expect(claims).toMatchObject({ sub: 'alice@example.com', aud: exchanged.url, act: { sub: BASIC_ID } });
    expect(await gates['exchanged']!.authorize(headers['authorization'])).toBe(true);
    // Cached per subject: a second hop of alice asks nothing; bob gets his own.
    const before = tokenRequests();
    expect(await runAsCaller(caller, () => source.headers())).toEqual(headers);
    expect(tokenRequests()).toBe(before);
    const bobToken = await mintUserToken(as, { sub: 'bob', aud: GATEWAY_AUDIENCE });
    const bob = await runAsCaller(
      { kind: 'oidc', identity: { issuer: as.issuer, subject: 'bob', token: bobToken } },
      () => source.headers(),
    );
    expect(decodeJwt(bob['authorization']!.slice(7)).sub).toBe('bob');
    // No identity: refused, never another credential.
    await expect(source.headers()).rejects.toThrow(/no caller/);
    await expect(
      runAsCaller({ kind: 'api-key', identity: undefined }, () => source.headers()),
    ).rejects.toThrow(/API-key/);
  });

  it('upstream-oauth:exchange-per-subject-connection — each user gets a connection and upstream session of their own', async () => {
    const tokens = new UpstreamTokens({ secrets });
    const pool = new UpstreamPool({
      secrets,
      tokens,
      clientInfo: { name: 'it', version: '1' },
      logger: createPinoLogger({ level: 'silent' }),
    });
    const source = McpSourceSchema.parse({
      name: 'lx',
      transport: 'streamable-http',
      url: legacy.url,
      credential: { ...client({ tokenEndpoint: `${as.issuer}/token` }), type: 'tokenExchange' },
    });
    resources[legacy.url] = { scope: 'tools:read' };
    const gateBefore = gates['legacy']!.accepted.length;
    try {
      for (const sub of ['carol', 'dave']) {
        const token = await mintUserToken(as, { sub, aud: GATEWAY_AUDIENCE });
        await runAsCaller(
          { kind: 'oidc', identity: { issuer: as.issuer, subject: sub, token } },
          async () => {
            const connection = await pool.get('w', source);
            const result = await connection.callTool(
              'echo',
              { text: sub },
              { signal: AbortSignal.timeout(5000), timeoutMs: 5000 },
            );
            expect(result['content']).toEqual([{ type: 'text', text: sub }]);
          },
        );
      }
      const subs = new Set(gates['legacy']!.accepted.slice(gateBefore).map((p) => p.sub));
      expect(subs).toEqual(new Set(['carol', 'dave']));
      await expect(pool.get('w', source)).rejects.toThrow(/no caller/);
    } finally {
      await pool.close();
    }
  });
});

describe('secrets and tokens stay out of logs and errors', () => {
  it('upstream-oauth:no-leak — no client secret or upstream token in the log or any error message', async () => {
    const tokensSeen = new Set<string>();
    for (const upstream of [modern, legacy, shortLived, exchanged])
      for (const request of upstream.log)
        if (request.authorization?.startsWith('Bearer ') === true)
          tokensSeen.add(request.authorization.slice(7));
    expect(tokensSeen.size).toBeGreaterThan(2);
    const answers = await Promise.all(
      ['badsecret', 'asgarbage', 'exchanged', 'asdenied'].map((s) => call(s)),
    );
    const leaks = findLeaks(
      [...h.logs, JSON.stringify(answers)],
      [
        { label: 'basic secret', value: BASIC_SECRET },
        { label: 'post secret', value: POST_SECRET, windows: true },
        { label: 'wrong secret', value: 'not-the-secret-Yt5' },
        ...[...tokensSeen].map((value, i) => ({
          label: `token ${i}`,
          value: value.slice(-40),
          windows: false,
        })),
      ],
    );
    expect(leaks).toEqual([]);
  });
});
