// Every upstream credential kind on an OpenAPI source's calls (issue 44), with real parts: REST APIs
// (test/fixtures/upstreams/rest-api-server.ts) that are protected resources of a real authorization
// server (oidc-provider, test/infra/oidc-provider.ts) and verify each token against its JWKS for
// their own audience (support/upstream-oauth.ts upstreamGate); the gateway from its composition root
// with OAuth sign-in and a SQLite connection store. Client credentials (one token, reused; the
// document's server as the default resource; a wrong secret refused clearly), RFC 8693 token
// exchange of a signed-in person's token (an API-key caller refused), per-user grants (connect
// first, each user their own token) and a static API-key header. Each case looks at what the API
// received and at the gateway's logs.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRestApi, type RunningRestApi } from '../fixtures/upstreams/rest-api-server.js';
import { freePort } from '../infra/free-port.js';
import { startAuthServer, type AuthServer } from '../infra/oidc-provider.js';
import { keyRecord, newKeys, startHarness, type Harness } from '../support/gateway-harness.js';
import { findLeaks, type Needle } from '../support/leak-scan.js';
import { rpcCall, type RpcAnswer } from '../support/mcp-clients.js';
import { machineClient, publicClient, signInAs } from '../support/oauth-clients.js';
import { connectAccount, ticketOf } from '../support/user-consent.js';
import { connectUrlOf, rawCall, type RawAnswer } from '../support/user-source.js';
import {
  tokenExchangeGrant,
  upstreamGate,
  TOKEN_EXCHANGE,
  type ExchangeRecord,
  type UpstreamGate,
} from '../support/upstream-oauth.js';

const CLIENT_ID = 'gw-rest-client';
const CLIENT_SECRET = 'rest-client-secret-Vb8q2m';
const WRONG_SECRET = 'not-the-rest-secret-Kp4';
const API_KEY = 'items-api-key-Rz6w1c-3e9f';
const CONNECTION_KEY = 'user-connection-key-0123456789-abcdefghij';

const [apiKey, alice, bob, carol] = newKeys(4);
const exchanges: ExchangeRecord[] = [];
const clients: Client[] = [];
const callerTokens: string[] = [];
let as: AuthServer;
let h: Harness;
let gatewayUrl: string;
let ccApi: RunningRestApi;
let exchangeApi: RunningRestApi;
let userApi: RunningRestApi;
let keyApi: RunningRestApi;
const gates: Record<'cc' | 'exchange' | 'user', UpstreamGate> = {} as never;

const tokenRequests = () => as.requests.get('/token') ?? 0;
const bearerOf = (headers: RunningRestApi['log'][number]['headers']) => {
  const value = headers.authorization;
  return typeof value === 'string' && value.startsWith('Bearer ') ? value.slice(7) : undefined;
};

function call(key: string, name: string, args: Record<string, unknown>): Promise<RpcAnswer> {
  return rpcCall(gatewayUrl, key, 'tools/call', { name, arguments: args });
}

/** Nothing of `needles` in the gateway's log lines (nor in `more`). */
function expectNoLeak(needles: readonly Needle[], more: readonly string[] = []): void {
  expect(findLeaks([...h.logs, ...more], needles)).toEqual([]);
}

/** The operations each source offers (a few of the fixture's). */
function operations(api: RunningRestApi): Record<string, unknown> {
  return { document: { inline: api.document }, include: { operationIds: ['getItem', 'echo'] } };
}

beforeAll(async () => {
  const port = await freePort();
  gatewayUrl = `http://127.0.0.1:${port}`;
  const gatewayResource = `${gatewayUrl}/mcp`;
  const gated = (name: keyof typeof gates) => ({
    authorize: (headers: { authorization?: string | undefined }) =>
      gates[name].authorize(headers.authorization),
  });
  ccApi = await startRestApi(gated('cc'));
  exchangeApi = await startRestApi(gated('exchange'));
  userApi = await startRestApi(gated('user'));
  keyApi = await startRestApi({ authorize: (headers) => headers['x-api-key'] === API_KEY });
  const items = { scope: 'items:read' };
  as = await startAuthServer({
    resources: {
      [gatewayResource]: { scope: 'mcp:read mcp:write' },
      [ccApi.url]: items,
      [exchangeApi.url]: items,
      [userApi.url]: items,
    },
    scopes: ['mcp:read', 'mcp:write', 'items:read'],
    clients: [
      publicClient('agw-public'),
      machineClient(CLIENT_ID, CLIENT_SECRET, { grant_types: ['client_credentials', TOKEN_EXCHANGE] }),
    ],
    configure: tokenExchangeGrant({ server: () => as, subjectAudience: gatewayResource, exchanges }),
  });
  gates.cc = upstreamGate(as.issuer, ccApi.url);
  gates.exchange = upstreamGate(as.issuer, exchangeApi.url);
  gates.user = upstreamGate(as.issuer, userApi.url);
  const clientCredentials = (secret = 'CC_SECRET') => ({
    type: 'oauthClientCredentials',
    issuer: as.issuer,
    clientId: { env: 'CC_ID' },
    clientSecret: { env: secret },
    scopes: ['items:read'],
  });
  const sqlitePath = join(await mkdtemp(join(tmpdir(), 'agw-conn-')), 'connections.db');
  h = await startHarness(
    {
      server: { host: '127.0.0.1', port, publicUrl: gatewayUrl },
      oauth: {
        scopesSupported: ['mcp:read', 'mcp:write'],
        challengeScopes: ['mcp:read'],
        defaultWorkspace: 'team',
      },
      userConnections: { sqlitePath, encryption: { keys: [{ env: 'AGW_CONNECTION_KEY' }] } },
      workspaces: [
        {
          name: 'team',
          keys: [apiKey, alice, bob, carol].map((key) => keyRecord(key, { access: 'write' })),
          identity: {
            issuers: [{ issuer: as.issuer }],
            rules: [{ name: 'people', issuer: as.issuer, when: [{ claim: 'scope', contains: 'mcp:read' }] }],
          },
          mcpSources: [
            {
              name: 'cc',
              transport: 'openapi',
              url: ccApi.url,
              credential: clientCredentials(),
              openapi: operations(ccApi),
            },
            {
              // No url: the base URL (and so the token's resource) is the document's server.
              name: 'ccdoc',
              transport: 'openapi',
              credential: clientCredentials(),
              openapi: {
                document: { url: `${new URL(ccApi.url).origin}/openapi.json` },
                include: { operationIds: ['getItem'] },
              },
            },
            {
              name: 'ccbad',
              transport: 'openapi',
              url: ccApi.url,
              credential: clientCredentials('WRONG_SECRET'),
              openapi: operations(ccApi),
            },
            {
              name: 'xchg',
              transport: 'openapi',
              url: exchangeApi.url,
              credential: { ...clientCredentials(), type: 'tokenExchange' },
              openapi: operations(exchangeApi),
            },
            {
              name: 'mine',
              transport: 'openapi',
              url: userApi.url,
              credential: { type: 'user', issuer: as.issuer, scopes: ['items:read'] },
              openapi: operations(userApi),
            },
            {
              name: 'keyed',
              transport: 'openapi',
              url: keyApi.url,
              credential: { type: 'header', name: 'X-Api-Key', secret: { env: 'ITEMS_API_KEY' } },
              openapi: operations(keyApi),
            },
          ],
        },
      ],
    },
    {
      CC_ID: CLIENT_ID,
      CC_SECRET: CLIENT_SECRET,
      WRONG_SECRET,
      ITEMS_API_KEY: API_KEY,
      AGW_CONNECTION_KEY: CONNECTION_KEY,
    },
  );
}, 60_000);

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await h?.stop();
  for (const api of [ccApi, exchangeApi, userApi, keyApi]) await api?.close();
  await as?.stop();
});

describe('credentials on OpenAPI sources', () => {
  it('openapi:cred-client-credentials — a call reaches the API with a token the server issued to the gateway’s client, fetched once and reused; the document’s server is the default resource; a wrong secret is a clear refusal', async () => {
    const before = tokenRequests();
    const accepted = gates.cc.accepted.length;
    for (let i = 0; i < 5; i += 1) {
      const answer = await call(apiKey.key, 'cc__getItem', { id: 'a1' });
      expect(answer.result?.['structuredContent'], JSON.stringify(answer)).toMatchObject({ name: 'first' });
      if (i === 0) expect(tokenRequests()).toBe(before + 1);
    }
    expect(tokenRequests()).toBe(before + 1);
    const seen = gates.cc.accepted.slice(accepted);
    expect(seen).toHaveLength(5);
    for (const claims of seen)
      expect(claims).toMatchObject({ aud: ccApi.url, client_id: CLIENT_ID, scope: 'items:read' });
    expect(new Set(seen.map((claims) => claims.jti)).size).toBe(1);
    expect(JSON.stringify(ccApi.log)).not.toContain(apiKey.key);

    // A 401 from the API costs one new token and the call still succeeds.
    gates.cc.refuseNext(1);
    const retried = await call(apiKey.key, 'cc__getItem', { id: 'b2' });
    expect(retried.result?.['structuredContent']).toMatchObject({ name: 'second' });
    expect(tokenRequests()).toBe(before + 2);

    // Without a url, the token is asked for the API the document's server names.
    const fromDocument = await call(apiKey.key, 'ccdoc__getItem', { id: 'a1' });
    expect(fromDocument.result?.['structuredContent'], JSON.stringify(fromDocument)).toMatchObject({
      name: 'first',
    });
    expect(gates.cc.accepted.at(-1)).toMatchObject({ aud: ccApi.url, client_id: CLIENT_ID });

    // A wrong client secret: refused at the token endpoint, nothing sent to the API.
    const sent = ccApi.log.length;
    const refused = await call(apiKey.key, 'ccbad__getItem', { id: 'a1' });
    expect(refused.error?.data, JSON.stringify(refused)).toMatchObject({
      code: 'upstream_token_unavailable',
      class: 'upstream_authorization',
    });
    expect(refused.error?.message).toMatch(/could not get an access token/);
    expect(ccApi.log.length).toBe(sent);
    // The document is fetched without the credential; every API request carried a token.
    const documentFetches = ccApi.log.filter((r) => r.rawUrl === '/openapi.json');
    expect(documentFetches.length).toBeGreaterThan(0);
    for (const request of documentFetches) expect(request.headers.authorization).toBeUndefined();
    const tokens = ccApi.log.map((r) => bearerOf(r.headers)).filter((t) => t !== undefined);
    expectNoLeak(
      [
        { label: 'client secret', value: CLIENT_SECRET, windows: true },
        { label: 'wrong secret', value: WRONG_SECRET, windows: true },
        ...[...new Set(tokens)].map((value, i) => ({ label: `token ${i}`, value: value.slice(-40) })),
      ],
      [JSON.stringify(refused)],
    );
  });

  it('openapi:cred-token-exchange — a signed-in person’s token is exchanged and the API sees their subject and its own audience, never their token; an API-key caller is refused as MCP sources refuse it', async () => {
    const signedIn: Record<string, string> = {};
    for (const login of ['alice', 'bob']) {
      const { client, token } = await signInAs(gatewayUrl, login);
      clients.push(client);
      callerTokens.push(token);
      signedIn[login] = token;
      const accepted = gates.exchange.accepted.length;
      const result = (await client.callTool({ name: 'xchg__echo', arguments: { segment: login } })) as {
        isError?: boolean;
        structuredContent?: Record<string, unknown>;
      };
      expect(result.isError ?? false, JSON.stringify(result)).toBe(false);
      expect(result.structuredContent).toMatchObject({ path: `/v1/echo/${login}` });
      const seen = gates.exchange.accepted.slice(accepted);
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatchObject({ sub: login, aud: exchangeApi.url, act: { sub: CLIENT_ID } });
    }
    // Each request carried its own caller's exchanged token, never a caller's own.
    const bySub = new Map<string, Set<string>>();
    for (const request of exchangeApi.log) {
      const token = bearerOf(request.headers);
      if (token === undefined) continue;
      expect(Object.values(signedIn)).not.toContain(token);
      const sub = String(decodeJwt(token).sub);
      expect(request.rawUrl).toBe(`/v1/echo/${sub}`);
      bySub.set(sub, (bySub.get(sub) ?? new Set()).add(token));
    }
    expect([...bySub.keys()].sort()).toEqual(['alice', 'bob']);
    expect(exchanges.filter((e) => e.resource === exchangeApi.url).map((e) => e.sub)).toEqual([
      'alice',
      'bob',
    ]);

    // An API-key caller has no token to exchange: refused, nothing sent, no fallback.
    const sent = exchangeApi.log.length;
    const refused = await call(apiKey.key, 'xchg__echo', { segment: 'key' });
    expect(refused.error?.data, JSON.stringify(refused)).toMatchObject({
      code: 'upstream_identity_required',
      class: 'upstream_authorization',
    });
    expect(refused.error?.message).toMatch(/sign in with the identity provider/);
    expect(exchangeApi.log.length).toBe(sent);
    const upstreamTokens = [...bySub.values()].flatMap((set) => [...set]);
    expectNoLeak([
      { label: 'client secret', value: CLIENT_SECRET, windows: true },
      ...callerTokens.map((value, i) => ({ label: `caller token ${i}`, value: value.slice(-40) })),
      ...upstreamTokens.map((value, i) => ({ label: `exchanged token ${i}`, value: value.slice(-40) })),
    ]);
  });

  it('openapi:cred-user-grant — a user who has not connected is asked to connect first, as for MCP sources; once connected each user’s own token is sent, and two users’ tokens never cross', async () => {
    const sent = userApi.log.length;
    const asked = await rawCall(gatewayUrl, alice.key, 'mine__echo', { arguments: { segment: 'alice' } });
    const link = connectUrlOf(asked);
    expect(link?.startsWith(`${gatewayUrl}/connect?ticket=`), JSON.stringify(asked)).toBe(true);
    expect(String(asked.result?.['requestState'])).toMatch(/^agwc1\./);
    // Without URL elicitation the link comes as a tool error.
    const plain = await rawCall(gatewayUrl, carol.key, 'mine__echo', { arguments: { segment: 'c' } }, false);
    expect(plain.result?.['isError']).toBe(true);
    expect(JSON.stringify(plain.result?.['content'])).toContain(`${gatewayUrl}/connect?ticket=`);
    expect(userApi.log.length).toBe(sent);

    expect((await connectAccount(gatewayUrl, alice.key, { ticket: ticketOf(link!) }, 'alice')).status).toBe(
      200,
    );
    expect((await connectAccount(gatewayUrl, bob.key, { source: 'mine' }, 'bob')).status).toBe(200);
    const accepted = gates.user.accepted.length;
    const served = async (key: string, login: string): Promise<RawAnswer> =>
      rawCall(gatewayUrl, key, 'mine__echo', { arguments: { segment: login } });
    const answers = await Promise.all(
      ['alice', 'bob', 'alice', 'bob', 'alice', 'bob'].map((login) =>
        served(login === 'alice' ? alice.key : bob.key, login),
      ),
    );
    answers.forEach((answer, i) =>
      expect(answer.result?.['structuredContent'], JSON.stringify(answer)).toMatchObject({
        path: `/v1/echo/${i % 2 === 0 ? 'alice' : 'bob'}`,
      }),
    );
    const seen = gates.user.accepted.slice(accepted);
    expect(seen).toHaveLength(6);
    for (const claims of seen) expect(claims.aud).toBe(userApi.url);
    // What the API received: each user's request with that user's token, and no token shared.
    const bySub = new Map<string, Set<string>>();
    for (const request of userApi.log.slice(sent)) {
      const token = bearerOf(request.headers);
      if (token === undefined) continue;
      const sub = String(decodeJwt(token).sub);
      expect(request.rawUrl).toBe(`/v1/echo/${sub}`);
      bySub.set(sub, (bySub.get(sub) ?? new Set()).add(token));
    }
    expect([...bySub.keys()].sort()).toEqual(['alice', 'bob']);
    const [aliceTokens, bobTokens] = [bySub.get('alice')!, bySub.get('bob')!];
    expect([...aliceTokens].filter((t) => bobTokens.has(t))).toEqual([]);
    // Carol is still not connected: asked again, never served with another user's grant.
    const carolAgain = await rawCall(gatewayUrl, carol.key, 'mine__echo', { arguments: { segment: 'c' } });
    expect(carolAgain.result?.['resultType']).toBe('input_required');
    expect(userApi.log.some((r) => r.rawUrl === '/v1/echo/c')).toBe(false);
    expectNoLeak(
      [...aliceTokens, ...bobTokens].map((value, i) => ({
        label: `user token ${i}`,
        value: value.slice(-40),
      })),
    );
    expect(h.logs.join('\n')).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\.eyJ/);
  });

  it('openapi:cred-header — a static API-key header from the environment arrives exactly, with no Authorization, and never reaches the logs', async () => {
    const answer = await call(apiKey.key, 'keyed__echo', { segment: 'k' });
    expect(answer.result?.['structuredContent'], JSON.stringify(answer)).toMatchObject({
      path: '/v1/echo/k',
    });
    const received = keyApi.log.at(-1)!;
    expect(received.headers['x-api-key']).toBe(API_KEY);
    expect(received.headers.authorization).toBeUndefined();
    expect(JSON.stringify(keyApi.log)).not.toContain(apiKey.key);
    expectNoLeak([{ label: 'API key', value: API_KEY, windows: true }], [JSON.stringify(answer)]);
  });
});
