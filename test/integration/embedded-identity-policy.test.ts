// The identity policy in the embedded file (issue 37 items 1-2, D24), with a real authorization
// server (oidc-provider): with a `policy:` block the file's workspaces may trust only the issuers
// it lists for their namespace (the workspace name here), never with a key source of their own;
// the policy's JWKS is used where a workspace names none, and its claim conditions narrow a tenant's
// catch-all rule. A refused identity section is dropped from its workspace only, with a warning
// that names the workspace and the reason and no claim value; its API keys keep working.
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../infra/free-port.js';
import { startAuthServer, type AuthServer } from '../infra/oidc-provider.js';
import {
  demoSource,
  get,
  keyRecord,
  mcpPost,
  newKey,
  startHarness,
  type Harness,
} from '../support/gateway-harness.js';

const GROUP = 'team-a-agents-5d1';
const evilKeyRecord = newKey();
let as: AuthServer;
let h: Harness;
/** The workspace resources (D24): team-a's, which the issuer issues for, and evil's. */
let resource: string;
let evilResource: string;
let keys: Server;
let keysUrl: string;
let evilKey: CryptoKey;
let evilJwks = '';
const keyRequests = new Map<string, number>();

const clients = ['member', 'outsider'].map((id) => ({
  client_id: id,
  client_secret: `${id}-secret-0123456789`,
  grant_types: ['client_credentials'],
  redirect_uris: [],
  response_types: [],
}));

async function clientToken(clientId: string): Promise<string> {
  const response = await fetch(`${as.issuer}/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${clientId}:${clientId}-secret-0123456789`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', resource, scope: 'mcp:read' }),
  });
  const body = (await response.json()) as { access_token?: string };
  if (body.access_token === undefined) throw new Error(`no token: ${JSON.stringify(body)}`);
  return body.access_token;
}

const catchAll = (issuer: Record<string, unknown>) => ({
  issuers: [issuer],
  rules: [{ name: 'everyone', issuer: issuer['issuer'] }],
});

beforeAll(async () => {
  const port = await freePort();
  const gatewayUrl = `http://127.0.0.1:${port}`;
  resource = `${gatewayUrl}/w/team-a/mcp`;
  evilResource = `${gatewayUrl}/w/evil/mcp`;
  as = await startAuthServer({
    resources: { [resource]: { scope: 'mcp:read' } },
    scopes: ['mcp:read'],
    clients,
    tokenClaims: (_account, clientId) => ({ groups: clientId === 'member' ? [GROUP] : ['other-team'] }),
  });
  const evilPair = await generateKeyPair('ES256', { extractable: true });
  evilKey = evilPair.privateKey;
  evilJwks = JSON.stringify({
    keys: [{ ...(await exportJWK(evilPair.publicKey)), kid: 'evil-1', alg: 'ES256', use: 'sig' }],
  });
  // The admin's copy of the issuer's keys (`/a-keys`) and a tenant's key set of its own (`/evil-keys`).
  keys = createServer((request, response) => {
    const path = request.url ?? '';
    keyRequests.set(path, (keyRequests.get(path) ?? 0) + 1);
    if (path === '/a-keys') response.end(JSON.stringify({ keys: [as.publicKey] }));
    else if (path === '/evil-keys') response.end(evilJwks);
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => keys.listen(0, '127.0.0.1', resolve));
  keysUrl = `http://127.0.0.1:${(keys.address() as AddressInfo).port}`;
  h = await startHarness({
    server: { host: '127.0.0.1', port, publicUrl: gatewayUrl },
    oauth: {},
    policy: {
      network: { allow: { cidrs: ['127.0.0.1/32'] } },
      stdio: 'allow',
      identity: {
        issuers: [
          {
            issuer: as.issuer,
            jwksUri: `${keysUrl}/a-keys`,
            namespaces: ['team-a', 'evil'],
            claims: { 'team-a': [{ claim: 'groups', contains: GROUP }] },
          },
        ],
      },
    },
    workspaces: [
      // A tenant's catch-all rule for the company issuer; the admin's group condition narrows it.
      { name: 'team-a', mcpSources: [demoSource('demo')], identity: catchAll({ issuer: as.issuer }) },
      // The same issuer with a key set of its own: it could mint any of the issuer's subjects.
      {
        name: 'evil',
        keys: [keyRecord(evilKeyRecord)],
        mcpSources: [demoSource('demo')],
        identity: catchAll({ issuer: as.issuer, jwksUri: `${keysUrl}/evil-keys` }),
      },
      // An issuer the policy does not list at all.
      {
        name: 'stray',
        identity: catchAll({ issuer: `${keysUrl}/stray-issuer`, jwksUri: `${keysUrl}/evil-keys` }),
      },
    ],
  });
}, 60_000);

afterAll(async () => {
  await h?.stop();
  await as?.stop();
  await new Promise<void>((resolve) => (keys ? keys.close(() => resolve()) : resolve()));
});

/** tools/list at a workspace's own MCP endpoint, /w/<workspace>/mcp. */
async function toolsStatus(token: string, workspace = 'team-a'): Promise<number> {
  return (await mcpPost(`${h.url}/w/${workspace}`, token, { method: 'tools/list' })).status;
}

function refusal(workspace: string): Record<string, unknown> | undefined {
  const line = h.logs.find(
    (l) => l.includes('refused by the tenant policy') && l.includes(`"workspace":"${workspace}"`),
  );
  return line === undefined ? undefined : (JSON.parse(line) as Record<string, unknown>);
}

describe('the identity policy in an embedded file', () => {
  it('policy:embedded-claims-narrow-catch-all — a catch-all rule admits only tokens with the admin’s group; keys come from the policy’s JWKS', async () => {
    expect(await toolsStatus(await clientToken('member'))).toBe(200);
    expect(await toolsStatus(await clientToken('outsider'))).toBe(403);
    expect(keyRequests.get('/a-keys') ?? 0).toBeGreaterThan(0);
  });

  it('policy:embedded-own-keys-refused — a workspace pairing the issuer with its own keys loses its identity section: its minted token is refused, its API key still works', async () => {
    const now = Math.floor(Date.now() / 1000);
    const minted = await new SignJWT({
      iss: as.issuer,
      aud: evilResource,
      sub: 'alice',
      client_id: 'member',
      scope: 'mcp:read',
      groups: [GROUP],
      iat: now,
      exp: now + 300,
    })
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'evil-1' })
      .sign(evilKey);
    expect(await toolsStatus(minted, 'evil')).toBe(401);
    expect(keyRequests.get('/evil-keys') ?? 0).toBe(0);
    expect((await get(`${h.url}/agent/tools`, evilKeyRecord.key)).status).toBe(200);
    expect(refusal('evil')).toMatchObject({ reason: 'KeySourceNotAllowed', level: 40 });
    expect(String(refusal('evil')?.['problem'])).toContain('identity.issuers[0].jwksUri');
  });

  it('policy:embedded-issuer-not-allowed — an issuer the policy does not list is dropped with a warning naming the workspace; no log line carries the admin’s claim value', () => {
    expect(refusal('stray')).toMatchObject({ reason: 'IssuerNotAllowed' });
    expect(String(refusal('stray')?.['problem'])).toContain('namespace stray');
    expect(refusal('team-a')).toBeUndefined();
    expect(h.logs.join('\n')).not.toContain(GROUP);
  });
});
