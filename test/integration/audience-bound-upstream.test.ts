// The parts issue 42's end-to-end tests stand on, tested on their own: the oidc-provider fixture as
// a SaaS authorization server (authorization code with PKCE and `resource`, RFC 9207 `iss`, refresh
// tokens issued always or with offline_access, rotated or kept, a user's grants revoked server-side)
// and the audience-bound upstream (only its own audience, in both eras through the SDK v2 client;
// 401 with RFC 9728 metadata otherwise). The test is the OAuth client; headlessConsent is the user.
import { createHash, randomBytes } from 'node:crypto';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startAudienceBoundServer,
  type AudienceBoundServer,
} from '../fixtures/upstreams/audience-bound-server.js';
import { startAuthServer, type AuthServer, type ResourceServerInfo } from '../infra/oidc-provider.js';
import { CookieJar, headlessConsent } from '../support/headless-consent.js';
import { machineClient, machineSecret } from '../support/oauth-clients.js';
import { mintUserToken } from '../support/upstream-oauth.js';

const CALLBACK = 'http://127.0.0.1:9/oauth/upstream/callback';
const OTHER_RESOURCE = 'http://127.0.0.1:9/other/mcp';
/** Always gets a refresh token, keeps it on refresh. */
const KEEPING = 'saas-keeping';
/** Gets a refresh token only with offline_access, rotates it on refresh. */
const ROTATING = 'saas-rotating';

const resources: Record<string, ResourceServerInfo> = {
  [OTHER_RESOURCE]: { scope: 'tools:read', ttlSeconds: 60 },
};
let as: AuthServer;
let upstream: AudienceBoundServer;

interface TokenAnswer {
  access_token?: string;
  refresh_token?: string;
  error?: string;
}

const codeClient = (clientId: string) =>
  machineClient(clientId, machineSecret(clientId), {
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    redirect_uris: [CALLBACK],
  });

async function tokenRequest(clientId: string, params: Record<string, string>): Promise<TokenAnswer> {
  const basic = Buffer.from(`${clientId}:${machineSecret(clientId)}`).toString('base64');
  const response = await fetch(`${as.issuer}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${basic}` },
    body: new URLSearchParams(params),
  });
  return (await response.json()) as TokenAnswer;
}

/** The whole authorization-code flow for `resource` as `account`: PKCE, consent, code → tokens. */
async function authorize(
  clientId: string,
  resource: string,
  account: string,
  scope = 'tools:read',
): Promise<{ tokens: TokenAnswer; callback: URL }> {
  const verifier = randomBytes(32).toString('base64url');
  const state = randomBytes(16).toString('base64url');
  const url = new URL(`${as.issuer}/auth`);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: CALLBACK,
    scope,
    resource,
    state,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    // oidc-provider grants offline_access only with prompt=consent (OpenID Connect Core §11).
    ...(scope.split(' ').includes('offline_access') ? { prompt: 'consent' } : {}),
  }).toString();
  const callback = await headlessConsent(url, account, new CookieJar());
  expect(callback.searchParams.get('state')).toBe(state);
  const tokens = await tokenRequest(clientId, {
    grant_type: 'authorization_code',
    code: callback.searchParams.get('code') ?? '',
    redirect_uri: CALLBACK,
    code_verifier: verifier,
    resource,
  });
  return { tokens, callback };
}

const refresh = (clientId: string, refreshToken: string) =>
  tokenRequest(clientId, { grant_type: 'refresh_token', refresh_token: refreshToken });

async function connect(token: string, mode: 'auto' | 'legacy'): Promise<Client> {
  const client = new Client({ name: 'fixture-test', version: '1.0.0' }, { versionNegotiation: { mode } });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(upstream.url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

const initialize = (authorization?: string) =>
  fetch(upstream.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(authorization === undefined ? {} : { authorization }),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    }),
  });

beforeAll(async () => {
  as = await startAuthServer({
    resources,
    clients: [codeClient(KEEPING), codeClient(ROTATING)],
    issueRefreshToken: (clientId) => clientId === KEEPING,
    rotateRefreshToken: (clientId) => (clientId === ROTATING ? 'always' : 'never'),
  });
  upstream = await startAudienceBoundServer({ issuer: as.issuer, scopes: ['tools:read'] });
  resources[upstream.url] = { scope: 'tools:read', ttlSeconds: 60 };
});

afterAll(async () => {
  await upstream?.stop();
  await as?.stop();
});

describe('the SaaS authorization server and its audience-bound upstream', () => {
  it('issues, for a code flow with PKCE and resource, a JWT for that resource and names itself in the redirect (RFC 9207)', async () => {
    const { tokens, callback } = await authorize(KEEPING, upstream.url, 'alice');
    expect(callback.origin + callback.pathname).toBe(CALLBACK);
    expect(callback.searchParams.get('iss')).toBe(as.issuer);
    const claims = decodeJwt(tokens.access_token ?? '');
    expect(claims).toMatchObject({ sub: 'alice', aud: upstream.url, iss: as.issuer, scope: 'tools:read' });
    expect(tokens.refresh_token).toEqual(expect.any(String));
  });

  it.each(['auto', 'legacy'] as const)(
    'lets the account call whoami and echo through the SDK v2 client (%s)',
    async (mode) => {
      const { tokens } = await authorize(KEEPING, upstream.url, `bob-${mode}`);
      const before = upstream.accepted.length;
      const client = await connect(tokens.access_token ?? '', mode);
      try {
        const whoami = await client.callTool({ name: 'whoami', arguments: {} });
        expect(whoami.structuredContent).toEqual({ sub: `bob-${mode}`, scope: 'tools:read' });
        expect(whoami.content).toEqual([{ type: 'text', text: `sub=bob-${mode} scope=tools:read` }]);
        const echo = await client.callTool({ name: 'echo', arguments: { text: 'hello' } });
        expect(echo.content).toEqual([{ type: 'text', text: 'hello' }]);
      } finally {
        await client.close();
      }
      const calls = upstream.accepted.slice(before);
      expect(calls.map((call) => call.tool).filter(Boolean)).toEqual(['whoami', 'echo']);
      expect(new Set(calls.map((call) => call.sub))).toEqual(new Set([`bob-${mode}`]));
    },
  );

  it('answers no token 401 with only resource_metadata, whose document names the issuer', async () => {
    const before = upstream.requests();
    const response = await initialize();
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${upstream.metadataUrl}"`,
    );
    expect(upstream.requests()).toBe(before + 1);
    expect(upstream.metadataUrl).toBe(
      upstream.url.replace('/mcp', '/.well-known/oauth-protected-resource/mcp'),
    );
    const metadata = await (await fetch(upstream.metadataUrl)).json();
    expect(metadata).toMatchObject({ resource: upstream.url, authorization_servers: [as.issuer] });
  });

  it('refuses a token of the same issuer for another resource, an expired and a garbled one, as invalid_token', async () => {
    const { tokens } = await authorize(KEEPING, OTHER_RESOURCE, 'alice');
    expect(decodeJwt(tokens.access_token ?? '').aud).toBe(OTHER_RESOURCE);
    const expired = await mintUserToken(as, { sub: 'alice', aud: upstream.url, ttlSeconds: -10 });
    const before = upstream.accepted.length;
    for (const token of [tokens.access_token ?? '', expired, 'not.a.jwt']) {
      const response = await initialize(`Bearer ${token}`);
      expect(response.status).toBe(401);
      const challenge = response.headers.get('www-authenticate') ?? '';
      expect(challenge).toContain('error="invalid_token"');
      expect(challenge).toContain(`resource_metadata="${upstream.metadataUrl}"`);
      expect(challenge).toContain(token === expired ? 'token expired' : 'token refused');
      expect(challenge + (await response.text())).not.toContain(token);
    }
    expect(upstream.accepted.length).toBe(before);
  });

  it('refuses the next requests on demand (a token revoked at the SaaS), then accepts again', async () => {
    const { tokens } = await authorize(KEEPING, upstream.url, 'carol');
    upstream.refuseNext(1);
    const refused = await initialize(`Bearer ${tokens.access_token}`);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect((await initialize(`Bearer ${tokens.access_token}`)).status).toBe(200);
    expect(upstream.accepted.at(-1)).toMatchObject({ sub: 'carol', method: 'initialize' });
  });

  it('keeps the refresh token of a client without rotation, and its new access tokens work', async () => {
    const { tokens } = await authorize(KEEPING, upstream.url, 'dave');
    const first = await refresh(KEEPING, tokens.refresh_token ?? '');
    expect(decodeJwt(first.access_token ?? '')).toMatchObject({ sub: 'dave', aud: upstream.url });
    expect(first.refresh_token).toBe(tokens.refresh_token);
    const second = await refresh(KEEPING, tokens.refresh_token ?? '');
    expect(second.access_token).toEqual(expect.any(String));
    expect((await initialize(`Bearer ${second.access_token}`)).status).toBe(200);
  });

  it('gives a refresh token only with offline_access to other clients, and rotates it on use', async () => {
    const without = await authorize(ROTATING, upstream.url, 'erin');
    expect(without.tokens.access_token).toEqual(expect.any(String));
    expect(without.tokens.refresh_token).toBeUndefined();
    const { tokens } = await authorize(ROTATING, upstream.url, 'erin', 'offline_access tools:read');
    const rotated = await refresh(ROTATING, tokens.refresh_token ?? '');
    expect(rotated.refresh_token).toEqual(expect.any(String));
    expect(rotated.refresh_token).not.toBe(tokens.refresh_token);
    expect(decodeJwt(rotated.access_token ?? '')).toMatchObject({ sub: 'erin', aud: upstream.url });
    expect((await refresh(ROTATING, rotated.refresh_token ?? '')).access_token).toEqual(expect.any(String));
  });

  it("refuses refreshes with invalid_grant once the account's grants are revoked, and only that account's", async () => {
    const frank = await authorize(KEEPING, upstream.url, 'frank');
    const grace = await authorize(KEEPING, upstream.url, 'grace');
    expect(await as.revokeGrants('frank')).toBe(1);
    expect(await refresh(KEEPING, frank.tokens.refresh_token ?? '')).toMatchObject({
      error: 'invalid_grant',
    });
    expect((await refresh(KEEPING, grace.tokens.refresh_token ?? '')).access_token).toEqual(
      expect.any(String),
    );
    expect(await as.revokeGrants('frank')).toBe(0);
  });
});
