// RFC 8693 token exchange end to end (issue 29, D22): OAuth callers sign in to the gateway at the
// test authorization server (oidc-provider; the SDK v2 client through the 401 for people, client
// credentials for a machine), the auth hook seals each verified token onto its principal
// (auth/caller-token.ts), and a tool call to a tokenExchange source reaches upstreams that accept
// only tokens for their own audience: each sees a token with the caller's `sub` and an `act` claim,
// never the caller's token. An API-key caller is refused; two users get their own tokens and legacy
// sessions; a new token with other scopes is exchanged again; no token reaches the log or audit file.
import { readFile } from 'node:fs/promises';
import type { Client } from '@modelcontextprotocol/client';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../infra/free-port.js';
import { startAuthServer, type AuthServer } from '../infra/oidc-provider.js';
import { startLegacySessionfulServer } from '../fixtures/upstreams/legacy-sessionful-server.js';
import { startModernServer } from '../fixtures/upstreams/modern-server.js';
import type { RunningUpstream } from '../fixtures/upstreams/http-bridge.js';
import { keyRecord, newKey } from '../support/gateway-document.js';
import { startHarness, type Harness } from '../support/gateway-harness.js';
import { rpcCall, type RpcAnswer } from '../support/mcp-clients.js';
import { publicClient, signInAs } from '../support/oauth-clients.js';
import { findLeaks } from '../support/leak-scan.js';
import {
  tokenExchangeGrant,
  upstreamGate,
  TOKEN_EXCHANGE,
  type ExchangeRecord,
  type UpstreamGate,
} from '../support/upstream-oauth.js';

const EXCHANGER = 'gw-exchanger';
const EXCHANGER_SECRET = 'exchanger-secret-Hq3w8z';
const ROBOT = 'robot';
const ROBOT_SECRET = 'robot-secret-0123456789';

const apiKey = newKey();
const exchanges: ExchangeRecord[] = [];
const callerTokens: string[] = [];
let as: AuthServer;
let h: Harness;
let gatewayUrl: string;
let modern: RunningUpstream;
let legacy: RunningUpstream;
const gates: Record<string, UpstreamGate> = {};
const clients: Client[] = [];

function gated(name: string) {
  return { authorize: (authorization: string | undefined) => gates[name]!.authorize(authorization) };
}

async function machineToken(scope: string): Promise<string> {
  const response = await fetch(`${as.issuer}/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${ROBOT}:${ROBOT_SECRET}`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', resource: `${gatewayUrl}/mcp`, scope }),
  });
  const body = (await response.json()) as { access_token?: string };
  if (body.access_token === undefined) throw new Error(`no token: ${JSON.stringify(body)}`);
  callerTokens.push(body.access_token);
  return body.access_token;
}

function echo(credential: string, source: string, text: string): Promise<RpcAnswer> {
  return rpcCall(gatewayUrl, credential, 'tools/call', { name: `${source}__echo`, arguments: { text } });
}

const bearer = (request: { authorization?: string }) => request.authorization?.slice('Bearer '.length);

async function signIn(login: string): Promise<{ client: Client; token: string }> {
  const signedIn = await signInAs(gatewayUrl, login);
  clients.push(signedIn.client);
  callerTokens.push(signedIn.token);
  return signedIn;
}

beforeAll(async () => {
  const port = await freePort();
  gatewayUrl = `http://127.0.0.1:${port}`;
  const resource = `${gatewayUrl}/mcp`;
  modern = await startModernServer(gated('modern'));
  legacy = await startLegacySessionfulServer(gated('legacy'));
  as = await startAuthServer({
    resources: {
      [resource]: { scope: 'mcp:read mcp:write' },
      [modern.url]: { scope: 'tools:read' },
      [legacy.url]: { scope: 'tools:read' },
    },
    scopes: ['mcp:read', 'mcp:write', 'tools:read'],
    clients: [
      publicClient('agw-public'),
      {
        client_id: EXCHANGER,
        client_secret: EXCHANGER_SECRET,
        grant_types: ['client_credentials', TOKEN_EXCHANGE],
        redirect_uris: [],
        response_types: [],
      },
      {
        client_id: ROBOT,
        client_secret: ROBOT_SECRET,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
      },
    ],
    configure: tokenExchangeGrant({ server: () => as, subjectAudience: resource, exchanges }),
  });
  gates['modern'] = upstreamGate(as.issuer, modern.url);
  gates['legacy'] = upstreamGate(as.issuer, legacy.url);
  const exchange = {
    type: 'tokenExchange',
    clientId: { env: 'XCHG_CLIENT_ID' },
    clientSecret: { env: 'XCHG_CLIENT_SECRET' },
    issuer: as.issuer,
    scopes: ['tools:read'],
  };
  h = await startHarness(
    {
      server: { host: '127.0.0.1', port, publicUrl: gatewayUrl },
      oauth: {
        scopesSupported: ['mcp:read', 'mcp:write'],
        challengeScopes: ['mcp:read'],
        defaultWorkspace: 'team',
      },
      // With a policy block the file is bounded: the admin lets this workspace trust the issuer.
      policy: {
        network: { allow: { cidrs: ['127.0.0.1/32'] } },
        identity: { issuers: [{ issuer: as.issuer, namespaces: ['team'] }] },
      },
      workspaces: [
        {
          name: 'team',
          keys: [keyRecord(apiKey, { access: 'write' })],
          mcpSources: [
            { name: 'modern', transport: 'streamable-http', url: modern.url, credential: exchange },
            { name: 'legacy', transport: 'streamable-http', url: legacy.url, credential: exchange },
          ],
          identity: {
            issuers: [{ issuer: as.issuer }],
            rules: [
              {
                name: 'anyone',
                issuer: as.issuer,
                when: [{ claim: 'scope', contains: 'mcp:read' }],
                access: 'write',
              },
            ],
          },
        },
      ],
    },
    { XCHG_CLIENT_ID: EXCHANGER, XCHG_CLIENT_SECRET: EXCHANGER_SECRET },
  );
}, 60_000);

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await h?.stop();
  await modern?.close();
  await legacy?.close();
  await as?.stop();
});

describe('token exchange for OAuth callers', () => {
  it('upstream-oauth:exchange-end-to-end — a signed-in user calls a token-exchange source; the upstream sees the user as sub and the gateway as actor, never the caller’s token', async () => {
    const { client, token } = await signIn('alice');
    const accepted = gates['modern']!.accepted.length;
    for (const source of ['modern', 'legacy']) {
      const result = await client.callTool({ name: `${source}__echo`, arguments: { text: source } });
      expect(result.isError ?? false).toBe(false);
      expect(result.content).toEqual([{ type: 'text', text: source }]);
    }
    const seen = gates['modern']!.accepted.slice(accepted);
    expect(seen.length).toBeGreaterThan(0);
    for (const claims of seen)
      expect(claims).toMatchObject({ sub: 'alice', aud: modern.url, act: { sub: EXCHANGER } });
    expect(gates['legacy']!.accepted.some((c) => c.sub === 'alice' && c['act'] !== undefined)).toBe(true);
    for (const upstream of [modern, legacy])
      expect(upstream.log.map(bearer).filter((value) => value === token)).toEqual([]);
    expect(exchanges.filter((e) => e.sub === 'alice').map((e) => e.clientId)).toContain(EXCHANGER);
  });

  it('upstream-oauth:exchange-api-key-e2e — an API-key caller of the same source is refused with upstream_identity_required, nothing sent upstream', async () => {
    const before = modern.log.length;
    const answer = await echo(apiKey.key, 'modern', 'hi');
    expect(answer.error?.data).toMatchObject({
      code: 'upstream_identity_required',
      class: 'upstream_authorization',
    });
    expect(modern.log.length).toBe(before);
  });

  it('upstream-oauth:exchange-two-users — two users get two upstream tokens and two legacy sessions', async () => {
    const { client: bob } = await signIn('bob');
    await bob.callTool({ name: 'legacy__echo', arguments: { text: 'bob' } });
    await bob.callTool({ name: 'modern__echo', arguments: { text: 'bob' } });
    const tokensBySub = new Map<string, Set<string>>();
    const sessionsBySub = new Map<string, Set<string>>();
    for (const request of [...legacy.log, ...modern.log]) {
      const value = bearer(request);
      if (value === undefined) continue;
      const sub = String(decodeJwt(value).sub);
      if (!tokensBySub.has(sub)) tokensBySub.set(sub, new Set());
      tokensBySub.get(sub)!.add(value);
      const session = request.sessionId ?? request.responseSessionId;
      if (session === undefined || !legacy.log.includes(request)) continue;
      if (!sessionsBySub.has(sub)) sessionsBySub.set(sub, new Set());
      sessionsBySub.get(sub)!.add(session);
    }
    const [alice, bobs] = [tokensBySub.get('alice'), tokensBySub.get('bob')];
    expect(alice?.size).toBeGreaterThan(0);
    expect(bobs?.size).toBeGreaterThan(0);
    expect([...alice!].filter((t) => bobs!.has(t))).toEqual([]);
    const [aliceSessions, bobSessions] = [sessionsBySub.get('alice'), sessionsBySub.get('bob')];
    expect(aliceSessions?.size).toBeGreaterThan(0);
    expect(bobSessions?.size).toBeGreaterThan(0);
    expect([...aliceSessions!].filter((s) => bobSessions!.has(s))).toEqual([]);
  });

  it('upstream-oauth:exchange-token-change — a new token with the same scopes reuses the exchanged token; other scopes are exchanged again', async () => {
    const robotExchanges = () => exchanges.filter((e) => e.sub === ROBOT && e.resource === modern.url).length;
    const lastRobotToken = () => bearer(modern.log.filter((r) => r.rpcMethod === 'tools/call').at(-1)!);

    const wide = await machineToken('mcp:read mcp:write');
    expect((await echo(wide, 'modern', 'one')).error).toBeUndefined();
    expect(robotExchanges()).toBe(1);
    const wideUpstream = lastRobotToken();

    // Same subject, same scopes, a new token: the exchanged token is reused until it nears expiry.
    const again = await machineToken('mcp:read mcp:write');
    expect(again).not.toBe(wide);
    expect((await echo(again, 'modern', 'two')).error).toBeUndefined();
    expect(robotExchanges()).toBe(1);
    expect(lastRobotToken()).toBe(wideUpstream);

    // Narrower scopes: never served by the exchange made for the wider grant.
    const narrow = await machineToken('mcp:read');
    expect((await echo(narrow, 'modern', 'three')).error).toBeUndefined();
    expect(robotExchanges()).toBe(2);
    expect(lastRobotToken()).not.toBe(wideUpstream);
    expect(decodeJwt(lastRobotToken()!)).toMatchObject({ sub: ROBOT, act: { sub: EXCHANGER } });
  });

  it('upstream-oauth:exchange-no-leak — neither the callers’ tokens nor the exchanged tokens reach the log or the audit file', async () => {
    const upstreamTokens = new Set<string>();
    for (const upstream of [modern, legacy])
      for (const request of upstream.log) {
        const value = bearer(request);
        if (value !== undefined) upstreamTokens.add(value);
      }
    expect(upstreamTokens.size).toBeGreaterThan(2);
    expect(callerTokens.length).toBeGreaterThan(3);
    const audit = await readFile(h.auditPath, 'utf8');
    expect(audit).toContain('"kind":"oidc"');
    const leaks = findLeaks(
      [...h.logs, audit],
      [
        ...callerTokens.map((value, i) => ({ label: `caller token ${i}`, value: value.slice(-40) })),
        ...[...upstreamTokens].map((value, i) => ({ label: `upstream token ${i}`, value: value.slice(-40) })),
        { label: 'exchanger secret', value: EXCHANGER_SECRET },
      ],
    );
    expect(leaks).toEqual([]);
  });
});
