// Identity across tenants (issue 37 items 1, 2, 3 and 8; D24): each workspace is its own protected
// resource (`/w/<name>/mcp`, audience R_w = <base>/w/<name>/mcp), so a token is verified only with
// the declarations of the workspace its audience names and admitted only by that workspace's rules.
// Three tenants trust the same company issuer (a real oidc-provider) with catch-all rules; `evil`
// pairs that issuer's URL with a key server of its own (slow, and its own signing key) and mints
// tokens for `alice`. None of it can deny, slow down or share the real alice of workspace `a`: not
// her admission, not her bridged calls (caps and sealed `requestState`), not her key id.
import { request as httpRequest, createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ClientCredentialsProvider } from '@modelcontextprotocol/client';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../infra/free-port.js';
import { startAuthServer, type AuthServer } from '../infra/oidc-provider.js';
import {
  startLegacySessionfulServer,
  type RunningLegacySessionfulServer,
} from '../fixtures/upstreams/legacy-sessionful-server.js';
import { createLegacyMcpServer } from '../fixtures/upstreams/legacy-tools.js';
import {
  get,
  keyRecord,
  MODERN_META,
  mcpPost,
  newKey,
  startHarness,
  type Harness,
} from '../support/gateway-harness.js';
import {
  clientCredentialsToken,
  connectWithLogin,
  HeadlessOAuthProvider,
  machineClient,
  publicClient,
} from '../support/oauth-clients.js';
import { corruptLastCharacter } from '../support/corrupt-key.js';

const MACHINE_SECRET = 'machine-secret-value-0123456789';
const CAP = 2;
let company: AuthServer;
let partner: AuthServer;
let legacy: RunningLegacySessionfulServer;
let h: Harness;
let gatewayUrl: string;
let document: Record<string, unknown>;
const keyA = newKey();
const keyB = newKey();
/** evil's own signing key, published by its own key server (which it declares as jwksUri). */
let evilKey: CryptoKey;
let evilJwks = '';
let evilServer: Server;
/** How long evil's key server waits before it answers, and how often it was asked. */
let evilDelayMs = 4500;
let evilJwksRequests = 0;

const shared = () => `${gatewayUrl}/mcp`;
const resourceOf = (workspace: string) => `${gatewayUrl}/w/${workspace}/mcp`;
const elicitMeta = {
  ...MODERN_META,
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
};

function catchAll(issuer: string) {
  return [{ name: 'everyone', issuer, access: 'write' }];
}

function machineToken(resource: string): Promise<string> {
  return clientCredentialsToken(company.issuer, {
    clientId: 'machine',
    clientSecret: MACHINE_SECRET,
    resource,
    scope: 'mcp:read mcp:write',
  });
}

/** alice's token for `workspace`, got the way an MCP host gets it: through the gateway's 401 on
 * /w/<workspace>/mcp, its metadata, registration and the login. */
async function aliceToken(workspace: string): Promise<string> {
  const provider = new HeadlessOAuthProvider('alice');
  const client = await connectWithLogin(`${gatewayUrl}/w/${workspace}`, provider, 'auto');
  await client.close();
  const token = provider.accessToken;
  if (token === undefined) throw new Error('no token');
  return token;
}

/** A token evil mints with its own key: the company's `iss`, subject alice, any audience. */
function forged(aud: string | string[], sub = 'alice'): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ scope: 'mcp:read mcp:write' })
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'evil-key' })
    .setIssuer(company.issuer)
    .setSubject(sub)
    .setAudience(aud)
    .setIssuedAt(now)
    .setExpirationTime(now + 600)
    .sign(evilKey);
}

/** A raw request whose path goes on the wire exactly as written (fetch would normalise it). */
function rawPost(
  path: string,
  token: string,
  body: Record<string, unknown>,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  const url = new URL(gatewayUrl);
  const payload = JSON.stringify({ jsonrpc: '2.0', id: 1, params: { _meta: MODERN_META }, ...body });
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method: 'POST',
        path,
        headers: {
          host: url.host,
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': String(body['method']),
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, text }),
        );
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}

type RpcBody = {
  result?: Record<string, unknown>;
  error?: { code?: number; data?: Record<string, unknown> };
};

async function askName(
  base: string,
  token: string,
  id: number,
  extra: Record<string, unknown> = {},
): Promise<{ status: number; body: RpcBody }> {
  const response = await mcpPost(base, token, {
    id,
    method: 'tools/call',
    params: { name: 'legacy__ask_name', arguments: {}, _meta: elicitMeta, ...extra },
  });
  return { status: response.status, body: (await response.json()) as RpcBody };
}

beforeAll(async () => {
  const port = await freePort();
  gatewayUrl = `http://127.0.0.1:${port}`;
  const resources = Object.fromEntries(
    [shared(), ...['a', 'b', 'evil'].map(resourceOf)].map((r) => [r, { scope: 'mcp:read mcp:write' }]),
  );
  company = await startAuthServer({
    resources,
    scopes: ['mcp:read', 'mcp:write'],
    clients: [publicClient('agw-public'), machineClient('machine', MACHINE_SECRET)],
  });
  partner = await startAuthServer({ resources, scopes: ['mcp:read', 'mcp:write'] });
  const pair = await generateKeyPair('ES256', { extractable: true });
  evilKey = pair.privateKey;
  evilJwks = JSON.stringify({
    keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'evil-key', alg: 'ES256', use: 'sig' }],
  });
  evilServer = createServer((_request, response) => {
    evilJwksRequests += 1;
    setTimeout(
      () => response.writeHead(200, { 'content-type': 'application/json' }).end(evilJwks),
      evilDelayMs,
    );
  });
  await new Promise<void>((resolve) => evilServer.listen(0, '127.0.0.1', resolve));
  const evilJwksUri = `http://127.0.0.1:${(evilServer.address() as AddressInfo).port}/jwks`;
  legacy = await startLegacySessionfulServer({ createServer: createLegacyMcpServer });
  const source = {
    name: 'legacy',
    transport: 'streamable-http',
    url: legacy.url,
    timeouts: { callMs: 20_000 },
  };
  const issuer = company.issuer;
  document = {
    server: {
      host: '127.0.0.1',
      port,
      publicUrl: gatewayUrl,
      console: { enabled: true },
      multiRound: { maxPendingPerKey: CAP, maxPendingPerWorkspace: 100, idleTimeoutMs: 30_000 },
    },
    oauth: { scopesSupported: ['mcp:read', 'mcp:write'], fetchTimeoutMs: 10_000 },
    workspaces: [
      {
        name: 'a',
        mcpSources: [source],
        keys: [keyRecord(keyA, { access: 'write' })],
        identity: { issuers: [{ issuer }], rules: catchAll(issuer) },
      },
      {
        name: 'b',
        mcpSources: [source],
        keys: [keyRecord(keyB, { access: 'write' })],
        identity: {
          issuers: [{ issuer }, { issuer: partner.issuer }],
          rules: [...catchAll(issuer), { name: 'partners', issuer: partner.issuer }],
        },
      },
      {
        name: 'evil',
        mcpSources: [source],
        identity: { issuers: [{ issuer, jwksUri: evilJwksUri }], rules: catchAll(issuer) },
      },
      { name: 'plain', mcpSources: [source] },
    ],
  };
  h = await startHarness(document);
}, 60_000);

afterAll(async () => {
  await h.stop();
  await legacy.close();
  await company.stop();
  await partner.stop();
  evilServer.closeAllConnections();
  await new Promise<void>((resolve) => evilServer.close(() => resolve()));
});

describe('a token is verified and admitted only by the workspace its audience names', () => {
  it("oauth:catch-alls-elsewhere — alice and a machine client are admitted to a with b's and evil's catch-alls present, and evil's slow key server is never asked", async () => {
    const token = await aliceToken('a');
    const tools = await mcpPost(`${gatewayUrl}/w/a`, token, { method: 'tools/list' });
    expect(tools.status).toBe(200);
    const echo = await mcpPost(`${gatewayUrl}/w/a`, token, {
      method: 'tools/call',
      params: { name: 'legacy__echo', arguments: { text: 'in a' } },
    });
    expect(echo.status).toBe(200);
    expect(await echo.text()).toContain('in a');
    const sources = await get(`${gatewayUrl}/agent/sources?response_format=json`, token);
    expect(sources.status).toBe(200);
    expect(((await sources.json()) as { workspace: string }).workspace).toBe('a');

    // A machine client (client credentials) through the SDK, for R_a.
    const provider = new ClientCredentialsProvider({
      clientId: 'machine',
      clientSecret: MACHINE_SECRET,
      scope: 'mcp:read mcp:write',
      expectedIssuer: company.issuer,
    });
    const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    const client = new Client({ name: 'machine', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(resourceOf('a')), { authProvider: provider }),
    );
    const called = await client.callTool({ name: 'legacy__echo', arguments: { text: 'machine in a' } });
    expect(JSON.stringify(called.content)).toContain('machine in a');
    await client.close();
    for (let i = 0; i < 3; i += 1) {
      const fresh = await machineToken(resourceOf('a'));
      expect((await mcpPost(`${gatewayUrl}/w/a`, fresh, { method: 'tools/list' })).status).toBe(200);
    }
    // evil declares the same issuer URL with a key server that answers after 4.5 s: a's tokens
    // never wait for it, because it is never asked.
    expect(evilJwksRequests).toBe(0);
  }, 60_000);

  it('oauth:wrong-workspace-audience — a token for R_a at /w/b/mcp or the shared /mcp is refused as invalid_token (wrong audience)', async () => {
    const token = await aliceToken('a');
    const atB = await mcpPost(`${gatewayUrl}/w/b`, token, { method: 'tools/list' });
    expect(atB.status).toBe(401);
    expect(atB.headers.get('www-authenticate')).toBe(
      `Bearer realm="agent-gateway", resource_metadata="${gatewayUrl}/.well-known/oauth-protected-resource/w/b/mcp", error="invalid_token", error_description="The access token is not valid.", scope="mcp:read mcp:write"`,
    );
    expect(h.logs.some((l) => l.includes('"reason":"wrong-audience"'))).toBe(true);
    const atShared = await mcpPost(gatewayUrl, token, { method: 'tools/list' });
    expect(atShared.status).toBe(401);
    expect(atShared.headers.get('www-authenticate')).toContain('error="invalid_token"');
  }, 60_000);

  it('oauth:workspace-bound-key-id — the same issuer and subject make a different key id in each workspace', async () => {
    const fingerprints: string[] = [];
    // One machine client (same issuer, same subject) with a token for each workspace's resource.
    for (const workspace of ['a', 'b']) {
      const token = await machineToken(resourceOf(workspace));
      const usage = await get(`${gatewayUrl}/agent/usage?response_format=json`, token);
      expect(usage.status).toBe(200);
      fingerprints.push(((await usage.json()) as { key: { fingerprint: string } }).key.fingerprint);
    }
    expect(fingerprints[0]).toMatch(/^oidc:[0-9a-f]{12}$/);
    expect(fingerprints[1]).toMatch(/^oidc:[0-9a-f]{12}$/);
    expect(fingerprints[0]).not.toBe(fingerprints[1]);
  }, 60_000);

  it('oauth:agent-routes-by-audience — /agent/* takes the one workspace resource a token names; two are refused', async () => {
    evilDelayMs = 0;
    const evilOnly = await get(
      `${gatewayUrl}/agent/sources?response_format=json`,
      await forged(resourceOf('evil')),
    );
    expect(evilOnly.status).toBe(200);
    expect(((await evilOnly.json()) as { workspace: string }).workspace).toBe('evil');
    // evil's key cannot speak for a: a token naming R_a is verified with a's keys only.
    const intoA = await get(`${gatewayUrl}/agent/sources`, await forged(resourceOf('a')));
    expect(intoA.status).toBe(401);
    const both = await get(
      `${gatewayUrl}/agent/sources`,
      await forged([resourceOf('evil'), resourceOf('a')]),
    );
    expect(both.status).toBe(401);
    expect(both.headers.get('www-authenticate')).toContain('error="invalid_token"');
  }, 60_000);
});

describe("evil's alice is not a's alice (item 1)", () => {
  it("oauth:pending-cap-per-workspace — evil's forged alice filling the per-key cap leaves the real alice's bridged calls in a untouched", async () => {
    evilDelayMs = 0;
    const evilToken = await forged(resourceOf('evil'));
    for (let i = 0; i < CAP; i += 1) {
      const held = await askName(`${gatewayUrl}/w/evil`, evilToken, 100 + i);
      expect(held.body.result?.['resultType'], JSON.stringify(held.body)).toBe('input_required');
    }
    const over = await askName(`${gatewayUrl}/w/evil`, evilToken, 110);
    expect(over.status).toBe(429);
    const real = await askName(`${gatewayUrl}/w/a`, await aliceToken('a'), 120);
    expect(real.status, JSON.stringify(real.body)).toBe(200);
    expect(real.body.result?.['resultType']).toBe('input_required');
  }, 60_000);

  it("oauth:request-state-bound-to-workspace — alice's requestState replayed from evil is refused, and her call still completes in a", async () => {
    evilDelayMs = 0;
    const token = await aliceToken('a');
    const started = await askName(`${gatewayUrl}/w/a`, token, 200);
    expect(started.body.result?.['resultType']).toBe('input_required');
    const requestState = started.body.result?.['requestState'] as string;
    const inputKey = Object.keys(started.body.result?.['inputRequests'] as object)[0] as string;
    const replay = await askName(`${gatewayUrl}/w/evil`, await forged(resourceOf('evil'), 'alice-2'), 201, {
      requestState,
      inputResponses: { [inputKey]: { action: 'accept', content: { name: 'Mallory' } } },
    });
    expect(replay.body.error?.code, JSON.stringify(replay.body)).toBe(-32602);
    const replayAsAlice = await askName(`${gatewayUrl}/w/evil`, await forged(resourceOf('evil')), 202, {
      requestState,
      inputResponses: { [inputKey]: { action: 'accept', content: { name: 'Mallory' } } },
    });
    expect(replayAsAlice.body.error?.code, JSON.stringify(replayAsAlice.body)).toBe(-32602);
    const finished = await askName(`${gatewayUrl}/w/a`, token, 203, {
      requestState,
      inputResponses: { [inputKey]: { action: 'accept', content: { name: 'Alice' } } },
    });
    expect(JSON.stringify(finished.body.result?.['content'])).toContain('hello Alice');
  }, 60_000);
});

describe('what each resource shows (item 8)', () => {
  it("oauth:metadata-per-resource — each workspace's metadata names its resource and its issuers only; unknown and identity-less workspaces are the same 404", async () => {
    const metadata = async (path: string) => {
      const response = await fetch(`${gatewayUrl}/.well-known/oauth-protected-resource${path}`);
      const body = (await response.json()) as Record<string, unknown>;
      // The request id differs per request; everything else must not.
      const error = body['error'] as Record<string, unknown> | undefined;
      if (error !== undefined) delete error['requestId'];
      return { status: response.status, body };
    };
    expect(await metadata('/w/a/mcp')).toMatchObject({
      status: 200,
      body: { resource: resourceOf('a'), authorization_servers: [company.issuer] },
    });
    const b = await metadata('/w/b/mcp');
    expect(b.body['authorization_servers']).toEqual([company.issuer, partner.issuer].sort());
    const unknown = await metadata('/w/nope/mcp');
    const identityLess = await metadata('/w/plain/mcp');
    expect(unknown.status).toBe(404);
    expect(identityLess).toEqual(unknown);
    // The shared resource, with no default workspace: no issuer at all.
    for (const path of ['', '/mcp'])
      expect(await metadata(path)).toMatchObject({
        status: 200,
        body: { resource: shared(), authorization_servers: [] },
      });
    // The 401 at a workspace's endpoint names that workspace's metadata.
    const challenge = await mcpPost(`${gatewayUrl}/w/a`, undefined, { method: 'tools/list' });
    expect(challenge.status).toBe(401);
    expect(challenge.headers.get('www-authenticate')).toContain(
      `resource_metadata="${gatewayUrl}/.well-known/oauth-protected-resource/w/a/mcp"`,
    );
  });

  it("oauth:sign-in-options-per-resource — the console's sign-in options and CSP show the default workspace's issuers, or the opened workspace's", async () => {
    const options = async (path: string) => (await fetch(`${gatewayUrl}${path}`)).json();
    const csp = async (path: string) =>
      (await fetch(`${gatewayUrl}${path}`)).headers.get('content-security-policy') ?? '';
    expect(await options('/console/sign-in-options.json')).toMatchObject({ authorization_servers: [] });
    expect(await csp('/console')).not.toContain('127.0.0.1');
    expect(await options('/w/a/console/sign-in-options.json')).toMatchObject({
      resource: resourceOf('a'),
      authorization_servers: [company.issuer],
    });
    expect(await csp('/w/a/console')).toContain(new URL(company.issuer).origin);
    expect(await csp('/w/a/console')).not.toContain(new URL(partner.issuer).origin);
    expect(await csp('/w/a/console/callback')).toContain(new URL(company.issuer).origin);
    expect(await csp('/w/b/console')).toContain(new URL(partner.issuer).origin);
    expect(await options('/w/nope/console/sign-in-options.json')).toEqual({});
    expect(await options('/w/plain/console/sign-in-options.json')).toEqual({});
  });
});

describe('API keys and paths on workspace resources', () => {
  it("oauth:key-bound-to-workspace — a's key works at /w/a/mcp; at /w/b/mcp and /w/nope/mcp it is refused exactly like a bad key", async () => {
    expect((await mcpPost(`${gatewayUrl}/w/a`, keyA.key, { method: 'tools/list' })).status).toBe(200);
    const answerOf = async (base: string, key: string) => {
      const response = await mcpPost(base, key, { method: 'tools/list' });
      // The request id differs per request; everything else must not.
      const body = (await response.text()).replace(/"requestId":"[^"]*"/, '"requestId":"…"');
      return { status: response.status, challenge: response.headers.get('www-authenticate'), body };
    };
    const foreign = await answerOf(`${gatewayUrl}/w/b`, keyA.key);
    // A well-formed key that was never issued, and one whose checksum is broken.
    const bad = await answerOf(`${gatewayUrl}/w/b`, newKey().key);
    expect((await answerOf(`${gatewayUrl}/w/b`, corruptLastCharacter(keyB.key))).status).toBe(401);
    expect(foreign.status).toBe(401);
    expect(foreign).toEqual(bad);
    const nowhere = await answerOf(`${gatewayUrl}/w/nope`, keyA.key);
    expect(nowhere.status).toBe(401);
    expect(nowhere.body).toBe(bad.body);
  });

  it('oauth:encoded-workspace-paths — encoded and dotted workspace segments resolve to the decoded name or to no workspace, never to another', async () => {
    const token = await aliceToken('a');
    const list = { method: 'tools/list' };
    expect((await rawPost('/w/%61/mcp', keyA.key, list)).status).toBe(200);
    expect((await rawPost('/w/%61/mcp', token, list)).status).toBe(200);
    for (const path of [
      '/w/a%2Fb/mcp',
      '/w/../mcp',
      '/w/a%2F..%2Fb/mcp',
      '/w/a%0d%0aX-Injected:%201/mcp',
      '/w/%2e%2e/mcp',
    ]) {
      for (const credential of [keyA.key, keyB.key, token]) {
        const answer = await rawPost(path, credential, list);
        expect(answer.status, `${path}: ${answer.text}`).toBe(401);
        expect(answer.headers['x-injected']).toBeUndefined();
      }
    }
  }, 60_000);
});

describe('the shared resource and the default workspace', () => {
  it('oauth:default-workspace — without one the shared /mcp admits no token; with one, a token for R goes there and only there', async () => {
    const before = await machineToken(shared());
    expect((await mcpPost(gatewayUrl, before, { method: 'tools/list' })).status).toBe(401);
    // Keys still work on the shared resource.
    expect((await mcpPost(gatewayUrl, keyB.key, { method: 'tools/list' })).status).toBe(200);
    const revision = h.gateway.config.current().revision;
    await h.writeConfig({ ...document, oauth: { ...(document['oauth'] as object), defaultWorkspace: 'b' } });
    await h.waitForRevision(revision);
    const token = await machineToken(shared());
    const listed = await mcpPost(gatewayUrl, token, { method: 'tools/list' });
    expect(listed.status).toBe(200);
    const sources = await get(`${gatewayUrl}/agent/sources?response_format=json`, token);
    expect(((await sources.json()) as { workspace: string }).workspace).toBe('b');
    expect((await mcpPost(`${gatewayUrl}/w/a`, token, { method: 'tools/list' })).status).toBe(401);
    const metadata = await fetch(`${gatewayUrl}/.well-known/oauth-protected-resource/mcp`);
    expect(await metadata.json()).toMatchObject({
      resource: shared(),
      authorization_servers: [company.issuer, partner.issuer].sort(),
    });
  }, 60_000);
});
