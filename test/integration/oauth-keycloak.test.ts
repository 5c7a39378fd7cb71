// Keycloak as the authorization server (issue 29): a real Keycloak 26 (test/infra/keycloak-server.ts,
// one start for this file) and a real `agent-gateway serve` process that trusts its realm. Keycloak's
// tokens are not oidc-provider's: header typ JWT with payload typ Bearer (not at+jwt), `aud` from an
// audience mapper (an array, beside `account`), groups from a group-membership mapper, realm roles in
// `realm_access.roles`, scopes in `scope`. The SDK v2 client signs in with authorization code + PKCE
// through the gateway's 401.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClientCredentialsProvider, type StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeGatewayConfig } from '../bench/bench-gateway.js';
import { startChild, type Child } from '../bench/child-process.js';
import { freePort } from '../infra/free-port.js';
import { keycloakLogin, startKeycloak, type Keycloak } from '../infra/keycloak-server.js';
import { demoSource, get, mcpPost } from '../support/gateway-harness.js';
import { findLeaks } from '../support/leak-scan.js';
import { startGatewayProcesses, type GatewayProcess } from '../support/gateway-processes.js';
import {
  connectWithLogin,
  groupScopeRules,
  HeadlessOAuthProvider,
  REDIRECT_URL,
  signInOAuth,
  withStepUp,
} from '../support/oauth-clients.js';

const REALM = 'agw';
const secret = () => randomBytes(18).toString('base64url');
const passwords: Record<string, string> = { alice: secret(), bob: secret(), carol: secret() };
const MACHINE_SECRET = secret();
const OTHER_SECRET = secret();

/** The SDK's OAuth client whose "browser" is Keycloak's login form. */
const tokensSeen: string[] = [];

class KeycloakSignIn extends HeadlessOAuthProvider {
  constructor(login: string) {
    super(login, 'agw-public');
  }

  override async completeLogin(transport: StreamableHTTPClientTransport): Promise<void> {
    if (this.authorizationUrl === undefined) throw new Error('the client was not sent to sign in');
    const callback = await keycloakLogin(
      this.authorizationUrl,
      this.login,
      passwords[this.login] ?? '',
      this.redirectUrl,
    );
    this.authorizationUrl = undefined;
    this.logins += 1;
    try {
      await transport.finishAuth(callback.searchParams);
    } finally {
      if (this.accessToken !== undefined) tokensSeen.push(this.accessToken);
    }
  }
}

let kc: Keycloak;
let issuer: string;
let dir: string;
let gateway: Child;
/** Everything the main gateway wrote (debug level) and its audit file's path. */
const gatewayOutput: string[] = [];
let auditPath: string;
let strict: GatewayProcess;
let gatewayUrl: string;
let resource: string;

async function clientCredentialsToken(clientId: string, clientSecret: string): Promise<string> {
  const response = await fetch(`${issuer}/protocol/openid-connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: clientSecret,
    }),
  });
  expect(response.status).toBe(200);
  const token = ((await response.json()) as { access_token: string }).access_token;
  tokensSeen.push(token);
  return token;
}

beforeAll(async () => {
  kc = await startKeycloak();
  issuer = kc.issuerOf(REALM);
  const port = await freePort();
  gatewayUrl = `http://127.0.0.1:${port}`;
  resource = `${gatewayUrl}/mcp`;
  await kc.createRealm('agw-realm.json', {
    GATEWAY_RESOURCE: resource,
    // Each workspace is its own resource (D24): Keycloak ignores `resource`, so the admin gives a
    // client one audience mapper per resource it signs in to.
    GATEWAY_RESOURCE_MACHINES: `${gatewayUrl}/w/machines/mcp`,
    GATEWAY_RESOURCE_OPERATORS: `${gatewayUrl}/w/operators/mcp`,
    REDIRECT_URI: REDIRECT_URL,
    ALICE_PASSWORD: passwords['alice'] as string,
    BOB_PASSWORD: passwords['bob'] as string,
    CAROL_PASSWORD: passwords['carol'] as string,
    MACHINE_SECRET,
    OTHER_SECRET,
  });
  for (const scope of ['mcp:read', 'mcp:write'])
    await kc.addOptionalScope(REALM, scope, ['agw-public', 'agw-machine']);

  dir = await mkdtemp(join(tmpdir(), 'agw-keycloak-it-'));
  auditPath = join(dir, 'audit.log');
  const workspaces = (tokenTypes: string[] | undefined) => [
    {
      name: 'payments',
      mcpSources: [demoSource('demo')],
      identity: {
        issuers: [{ issuer, ...(tokenTypes === undefined ? {} : { tokenTypes }) }],
        rules: groupScopeRules(issuer),
      },
    },
    {
      name: 'machines',
      mcpSources: [demoSource('robot')],
      identity: {
        issuers: [{ issuer, ...(tokenTypes === undefined ? {} : { tokenTypes }) }],
        rules: [
          { name: 'machine', issuer, when: [{ claim: 'azp', equals: 'agw-machine' }], access: 'write' },
          // Would admit this client too: only the audience keeps its tokens out.
          { name: 'no-audience', issuer, when: [{ claim: 'azp', equals: 'agw-no-audience' }] },
        ],
      },
    },
    {
      name: 'operators',
      mcpSources: [demoSource('ops')],
      identity: {
        issuers: [{ issuer, ...(tokenTypes === undefined ? {} : { tokenTypes }) }],
        rules: [
          { name: 'operators', issuer, when: [{ claim: 'realm_access.roles', contains: 'agw-operator' }] },
        ],
      },
    },
  ];
  // payments is the shared resource's (the default); machines and operators are reached at their own.
  const oauth = signInOAuth('payments');
  const config = await writeGatewayConfig(dir, {
    server: { host: '127.0.0.1', port, publicUrl: gatewayUrl },
    telemetry: { audit: { sink: 'file', path: auditPath } },
    oauth,
    // Keycloak types its access tokens JWT (header) and Bearer (payload): accepted only when asked.
    workspaces: workspaces(['jwt']),
  });
  // The same issuer and resource with the default token types (at+jwt only).
  const strictConfig = await writeGatewayConfig(
    dir,
    { oauth: { ...oauth, resource }, workspaces: workspaces(undefined) },
    'strict',
  );
  gateway = await startChild(
    ['bin/agent-gateway.js', 'serve', '--config', config, '--log-level', 'debug'],
    /listening on/,
    'stderr',
  );
  for (const stream of [gateway.process.stdout, gateway.process.stderr])
    stream?.on('data', (chunk: Buffer) => gatewayOutput.push(chunk.toString('utf8')));
  [strict] = (await startGatewayProcesses(strictConfig, 1)) as [GatewayProcess];
}, 240_000);

afterAll(async () => {
  await gateway?.stop();
  await strict?.child.stop();
  await kc?.stop();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
}, 60_000);

describe('Keycloak users sign in with authorization code + PKCE', () => {
  it("keycloak:sdk-login — the SDK v2 client signs in through the 401 and tools/list shows the group's read tools", async () => {
    const provider = new KeycloakSignIn('alice');
    const client = await connectWithLogin(gatewayUrl, provider, 'auto');
    expect(provider.logins).toBe(1);
    const token = provider.accessToken ?? '';
    // Keycloak's shape, the reason this test exists.
    expect(decodeProtectedHeader(token).typ).toBe('JWT');
    const claims = decodeJwt(token);
    expect(claims['typ']).toBe('Bearer');
    expect(claims.iss).toBe(issuer);
    expect(claims.aud).toEqual(expect.arrayContaining([resource]));
    expect(claims['groups']).toEqual(['payments-agents']);
    expect(String(claims['scope']).split(' ')).toContain('mcp:read');
    expect(String(claims['scope']).split(' ')).not.toContain('mcp:write');
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('demo__add');
    expect(names).not.toContain('demo__create_note');
    expect(names.some((n) => n.startsWith('robot__'))).toBe(false);
    const sum = await client.callTool({ name: 'demo__add', arguments: { a: 2, b: 40 } });
    expect(JSON.stringify(sum.content)).toContain('42');
    await client.close();
  }, 60_000);

  it('keycloak:scope-write — the mcp:write scope (a Keycloak client scope) gives the group write', async () => {
    const provider = new KeycloakSignIn('alice');
    const client = await connectWithLogin(gatewayUrl, provider, 'auto');
    const { result, steppedUp } = await withStepUp(
      gatewayUrl,
      provider,
      'auto',
      (c) => c.callTool({ name: 'demo__create_note', arguments: { title: 'kc', body: 'b' } }),
      client,
    );
    expect(steppedUp).toBe(true);
    expect(provider.logins).toBe(2);
    expect(result.isError ?? false).toBe(false);
    expect(String(decodeJwt(provider.accessToken ?? '')['scope']).split(' ')).toContain('mcp:write');
    const listed = await mcpPost(gatewayUrl, provider.accessToken, { method: 'tools/list' });
    expect(JSON.stringify(await listed.json())).toContain('demo__create_note');
    await client.close();
  }, 60_000);

  it('keycloak:realm-roles — a realm role in realm_access.roles admits its holder', async () => {
    const provider = new KeycloakSignIn('carol');
    const client = await connectWithLogin(`${gatewayUrl}/w/operators`, provider, 'auto');
    const claims = decodeJwt(provider.accessToken ?? '');
    expect((claims['realm_access'] as { roles: string[] }).roles).toContain('agw-operator');
    expect(claims['groups']).toBeUndefined(); // no group: Keycloak leaves the claim out
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('ops__add');
    expect(names.some((n) => n.startsWith('demo__') || n.startsWith('robot__'))).toBe(false);
    await client.close();
  }, 60_000);

  it('keycloak:no-group — a user in no admitted group is refused', async () => {
    const provider = new KeycloakSignIn('bob');
    await expect(connectWithLogin(gatewayUrl, provider, 'auto')).rejects.toThrow();
    const token = provider.accessToken ?? '';
    expect(decodeJwt(token)['groups']).toEqual(['staff']);
    expect(decodeJwt(token).aud).toEqual(expect.arrayContaining([resource]));
    const listed = await mcpPost(gatewayUrl, token, { method: 'tools/list' });
    expect(listed.status).toBe(403);
    const rest = await get(`${gatewayUrl}/agent/tools`, token);
    expect(rest.status).toBe(403);
    expect(await rest.text()).not.toMatch(/payments|machines|operators/);
  }, 60_000);
});

describe('Keycloak machines and refusals', () => {
  it('keycloak:client-credentials — a client-credentials token lands the machine in its workspace with write', async () => {
    const provider = new ClientCredentialsProvider({
      clientId: 'agw-machine',
      clientSecret: MACHINE_SECRET,
      expectedIssuer: issuer,
    });
    const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    const client = new Client({ name: 'machine', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${gatewayUrl}/w/machines/mcp`), {
        authProvider: provider,
      }),
    );
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('robot__create_note');
    expect(names.some((n) => n.startsWith('demo__'))).toBe(false);
    const created = await client.callTool({
      name: 'robot__create_note',
      arguments: { title: 'm', body: 'n' },
    });
    expect(created.isError ?? false).toBe(false);
    const token = provider.tokens()?.access_token ?? '';
    tokensSeen.push(token);
    expect(decodeJwt(token)['azp']).toBe('agw-machine');
    await client.close();
  }, 60_000);

  it('keycloak:no-audience — a genuine Keycloak token without the gateway in aud is refused with invalid_token', async () => {
    const token = await clientCredentialsToken('agw-no-audience', OTHER_SECRET);
    const claims = decodeJwt(token);
    expect(claims.iss).toBe(issuer);
    expect(claims['azp']).toBe('agw-no-audience');
    expect([claims.aud ?? []].flat()).not.toContain(resource);
    const response = await mcpPost(gatewayUrl, token, { method: 'tools/list' });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
    // The control: the machine with the audience mapper is let in by the same gateway.
    const admitted = await mcpPost(
      `${gatewayUrl}/w/machines`,
      await clientCredentialsToken('agw-machine', MACHINE_SECRET),
      { method: 'tools/list' },
    );
    expect(admitted.status).toBe(200);
  });

  it('keycloak:bearer-type — typ Bearer tokens are refused unless the issuer lists tokenTypes: [jwt]', async () => {
    const token = await clientCredentialsToken('agw-machine', MACHINE_SECRET);
    expect(decodeProtectedHeader(token).typ).toBe('JWT');
    const refused = await mcpPost(`${strict.url}/w/machines`, token, { method: 'tools/list' });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const accepted = await mcpPost(`${gatewayUrl}/w/machines`, token, { method: 'tools/list' });
    expect(accepted.status).toBe(200);
  });
});

describe('what the gateway writes', () => {
  it('keycloak:no-secret-in-logs — no Keycloak token, password, client secret or claim value in the log or audit file', async () => {
    const { readFile } = await import('node:fs/promises');
    const audit = await readFile(auditPath, 'utf8');
    expect(audit).toContain('"outcome"'); // the audit file was written, so scanning it means something
    expect(gatewayOutput.join('').length).toBeGreaterThan(0);
    const needles = [
      ...tokensSeen
        .filter((t) => t !== '')
        .map((value, i) => ({ label: `token ${i}`, value, windows: false })),
      ...Object.entries(passwords).map(([user, value]) => ({
        label: `${user}'s password`,
        value,
        windows: true,
      })),
      { label: 'machine secret', value: MACHINE_SECRET, windows: true },
      { label: 'other secret', value: OTHER_SECRET, windows: true },
      { label: 'group claim', value: 'payments-agents', windows: false },
      { label: 'email claim', value: 'alice@example.test', windows: false },
    ];
    expect(tokensSeen.length).toBeGreaterThan(6);
    expect(findLeaks([...gatewayOutput, audit], needles)).toEqual([]);
  });
});
