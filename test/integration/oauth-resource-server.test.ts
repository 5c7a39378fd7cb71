// The gateway as an OAuth 2.1 resource server (issue 29) against a real authorization server
// (oidc-provider, test/infra/oidc-provider.ts) and the real SDK v2 client: metadata, challenges,
// the whole sign-in from a 401 in both protocol eras, identity → workspace and permissions, the
// step-up for a read identity calling a write tool, a machine identity by client credentials, and
// API keys working unchanged beside it. `payments` is the default workspace (the shared /mcp's);
// the others are signed in to at their own resource, /w/<name>/mcp (D24).
import { ClientCredentialsProvider } from '@modelcontextprotocol/client';
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
import {
  clientCredentialsToken,
  connectWithLogin,
  groupScopeRules,
  HeadlessOAuthProvider,
  machineClient,
  publicClient,
  signInServer,
  withStepUp,
} from '../support/oauth-clients.js';
import { corruptLastCharacter } from '../support/corrupt-key.js';
import { connectClient } from '../support/mcp-clients.js';
import { findLeaks } from '../support/leak-scan.js';
import { clientConfigs } from '../../gateway/rest/mcp-config-route.js';

let as: AuthServer;
let h: Harness;
let gatewayUrl: string;
const writerKey = newKey();
const tokensSeen: string[] = [];
const resourceOf = (workspace: string) => `${gatewayUrl}/w/${workspace}/mcp`;

beforeAll(async () => {
  const port = await freePort();
  gatewayUrl = `http://127.0.0.1:${port}`;
  as = await startAuthServer({
    resources: Object.fromEntries(
      [`${gatewayUrl}/mcp`, ...['machines', 'shared-one', 'shared-two'].map(resourceOf)].map((r) => [
        r,
        { scope: 'mcp:read mcp:write' },
      ]),
    ),
    scopes: ['mcp:read', 'mcp:write'],
    clients: [publicClient('agw-public'), machineClient('machine', 'machine-secret-value-0123456789')],
    tokenClaims: (account) => ({ groups: account === 'alice' ? ['payments-agents'] : ['staff'] }),
  });
  const issuer = as.issuer;
  h = await startHarness({
    ...signInServer(port, gatewayUrl, 'payments'),
    workspaces: [
      {
        name: 'payments',
        mcpSources: [demoSource('demo')],
        keys: [keyRecord(writerKey, { access: 'write' })],
        identity: {
          issuers: [{ issuer }],
          rules: groupScopeRules(issuer),
        },
      },
      {
        name: 'machines',
        mcpSources: [demoSource('robot')],
        identity: {
          issuers: [{ issuer }],
          rules: [
            { name: 'machine', issuer, when: [{ claim: 'client_id', equals: 'machine' }], access: 'write' },
          ],
        },
      },
      {
        name: 'shared-one',
        mcpSources: [demoSource('one')],
        identity: {
          issuers: [{ issuer }],
          rules: [{ name: 'carol', issuer, when: [{ claim: 'sub', equals: 'carol' }] }],
        },
      },
      {
        name: 'shared-two',
        mcpSources: [demoSource('two')],
        identity: {
          issuers: [{ issuer }],
          rules: [{ name: 'carol', issuer, when: [{ claim: 'sub', equals: 'carol' }] }],
        },
      },
    ],
  });
}, 60_000);

afterAll(async () => {
  await h.stop();
  await as.stop();
});

describe('protected-resource metadata and challenges', () => {
  it('oauth:metadata — both well-known forms name the resource, the issuer and the scopes, without a credential', async () => {
    for (const path of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
    ]) {
      const response = await fetch(`${gatewayUrl}${path}`);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({
        resource: `${gatewayUrl}/mcp`,
        authorization_servers: [as.issuer],
        scopes_supported: ['mcp:read', 'mcp:write'],
        bearer_methods_supported: ['header'],
        resource_name: 'Agent Gateway',
      });
    }
  });

  it('oauth:challenge-401 — no credential: resource_metadata and scope, on /mcp and on the REST endpoints', async () => {
    const mcp = await mcpPost(gatewayUrl, undefined, { method: 'tools/list' });
    expect(mcp.status).toBe(401);
    expect(mcp.headers.get('www-authenticate')).toBe(
      `Bearer realm="agent-gateway", resource_metadata="${gatewayUrl}/.well-known/oauth-protected-resource/mcp", scope="mcp:read"`,
    );
    const rest = await get(`${gatewayUrl}/agent/tools`);
    expect(rest.status).toBe(401);
    expect(rest.headers.get('www-authenticate')).toBe(
      `Bearer realm="agent-gateway", resource_metadata="${gatewayUrl}/.well-known/oauth-protected-resource", scope="mcp:read"`,
    );
  });

  it('oauth:challenge-invalid-token — a bad token adds error="invalid_token"', async () => {
    const response = await get(`${gatewayUrl}/agent/tools`, 'not-a-real-token');
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(response.headers.get('www-authenticate')).toContain('resource_metadata=');
  });
});

describe('the SDK v2 client signs in through the 401', () => {
  for (const mode of ['auto', 'legacy'] as const) {
    it(`oauth:sdk-login — (${mode}) 401 → metadata → registration → PKCE with resource → login → exactly the identity's tools`, async () => {
      const provider = new HeadlessOAuthProvider('alice');
      const client = await connectWithLogin(gatewayUrl, provider, mode);
      expect(provider.logins).toBe(1);
      tokensSeen.push(provider.accessToken ?? '');
      expect(provider.tokens()?.scope).toBe('mcp:read');
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toContain('demo__add');
      expect(names).not.toContain('demo__create_note');
      expect(names.some((n) => n.startsWith('robot__'))).toBe(false);
      const sum = await client.callTool({ name: 'demo__add', arguments: { a: 2, b: 40 } });
      expect(JSON.stringify(sum.content)).toContain('42');
      // The write tool: the 403 step-up sends the SDK back to sign in for both scopes.
      await expect(
        client.callTool({ name: 'demo__create_note', arguments: { title: 'x', body: 'y' } }),
      ).rejects.toThrow();
      const again = provider.authorizationUrl;
      expect(again?.searchParams.get('scope')?.split(' ')).toEqual(
        expect.arrayContaining(['mcp:read', 'mcp:write']),
      );
      expect(again?.searchParams.get('resource')).toBe(`${gatewayUrl}/mcp`);
      expect(again?.searchParams.get('code_challenge_method')).toBe('S256');
      await client.close();
    }, 60_000);

    it(`oauth:step-up — (${mode}) a read identity steps up to write and the call goes through`, async () => {
      // A client registered beforehand: a dynamically registered one is capped at its first scope
      // by this authorization server (see test/infra/oidc-provider.ts).
      const provider = new HeadlessOAuthProvider('alice', 'agw-public');
      const client = await connectWithLogin(gatewayUrl, provider, mode);
      const { result, steppedUp } = await withStepUp(
        gatewayUrl,
        provider,
        mode,
        (c) => c.callTool({ name: 'demo__create_note', arguments: { title: `t-${mode}`, body: 'b' } }),
        client,
      );
      expect(steppedUp).toBe(true);
      expect(provider.logins).toBe(2);
      expect(result.isError ?? false).toBe(false);
      expect(provider.tokens()?.scope?.split(' ')).toContain('mcp:write');
      tokensSeen.push(provider.accessToken ?? '');
      await client.close();
    }, 60_000);
  }

  it('oauth:step-up-challenge — the 403 names every scope the call needs and the metadata', async () => {
    const provider = new HeadlessOAuthProvider('alice');
    const client = await connectWithLogin(gatewayUrl, provider, 'auto');
    const token = provider.accessToken ?? '';
    tokensSeen.push(token);
    const response = await mcpPost(gatewayUrl, token, {
      method: 'tools/call',
      params: { name: 'demo__create_note', arguments: { title: 'x', body: 'y' } },
    });
    expect(response.status).toBe(403);
    const challenge = response.headers.get('www-authenticate') ?? '';
    expect(challenge).toContain('error="insufficient_scope"');
    expect(challenge).toContain('scope="mcp:read mcp:write"');
    expect(challenge).toContain(`resource_metadata="${gatewayUrl}/.well-known/oauth-protected-resource/mcp"`);
    const body = (await response.json()) as { error: { data: { code: string } } };
    expect(body.error.data.code).toBe('insufficient_scope');
    await client.close();
  }, 60_000);

  it('oauth:no-workspace — an identity no workspace admits is refused with a plain 403', async () => {
    const provider = new HeadlessOAuthProvider('dave');
    await expect(connectWithLogin(gatewayUrl, provider, 'auto')).rejects.toThrow();
    const response = await get(`${gatewayUrl}/agent/tools`, provider.accessToken);
    expect(response.status).toBe(403);
    const text = await response.text();
    expect(text).not.toContain('payments');
    expect(text).not.toContain('machines');
    tokensSeen.push(provider.accessToken ?? '');
  }, 60_000);

  it('oauth:same-identity-two-workspaces — an identity two workspaces admit signs in to each at its own resource, never refused as ambiguous', async () => {
    for (const workspace of ['shared-one', 'shared-two']) {
      const provider = new HeadlessOAuthProvider('carol');
      const client = await connectWithLogin(`${gatewayUrl}/w/${workspace}`, provider, 'auto');
      // The SDK asked for the workspace's own resource, and the token is for it alone.
      const payload = (provider.accessToken ?? '').split('.')[1] ?? '';
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { aud?: unknown };
      expect(claims.aud).toBe(resourceOf(workspace));
      const names = (await client.listTools()).tools.map((t) => t.name);
      const own = workspace === 'shared-one' ? 'one__' : 'two__';
      expect(names.some((n) => n.startsWith(own))).toBe(true);
      expect(names.every((n) => n.startsWith(own))).toBe(true);
      await client.close();
      const sources = await get(`${gatewayUrl}/agent/sources?response_format=json`, provider.accessToken);
      expect(((await sources.json()) as { workspace: string }).workspace).toBe(workspace);
      tokensSeen.push(provider.accessToken ?? '');
    }
  }, 60_000);
});

describe('machines and keys', () => {
  it('oauth:client-credentials — ClientCredentialsProvider gets a token for the resource and lands in its workspace', async () => {
    const provider = new ClientCredentialsProvider({
      clientId: 'machine',
      clientSecret: 'machine-secret-value-0123456789',
      scope: 'mcp:read mcp:write',
      expectedIssuer: as.issuer,
    });
    const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    const client = new Client({ name: 'machine', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(resourceOf('machines')), { authProvider: provider }),
    );
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('robot__create_note');
    expect(names.some((n) => n.startsWith('demo__'))).toBe(false);
    const created = await client.callTool({
      name: 'robot__create_note',
      arguments: { title: 'm', body: 'n' },
    });
    expect(created.isError ?? false).toBe(false);
    tokensSeen.push(provider.tokens()?.access_token ?? '');
    await client.close();
  }, 60_000);

  it('oauth:api-keys-unchanged — an API key still works with OAuth on', async () => {
    const client = await connectClient(gatewayUrl, writerKey.key, 'auto');
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('demo__create_note');
    await client.close();
    const bad = await get(`${gatewayUrl}/agent/tools`, corruptLastCharacter(writerKey.key));
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('oauth:mcp-config — an OAuth caller gets configs for the MCP sign-in (no key, no header); a key still gets the key configs', async () => {
    const token = await clientCredentialsToken(as.issuer, {
      clientId: 'machine',
      clientSecret: 'machine-secret-value-0123456789',
      resource: resourceOf('machines'),
    });
    tokensSeen.push(token);
    const response = await get(`${gatewayUrl}/agent/mcp/config?response_format=json`, token);
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).not.toContain(token);
    const body = JSON.parse(text) as {
      endpoint: string;
      auth: Record<string, unknown>;
      clients: Record<string, { json?: unknown; command?: string; note: string }>;
    };
    // The machine signs in to its workspace's own resource, so that is where its clients connect.
    expect(body.endpoint).toBe(resourceOf('machines'));
    expect(body.auth).toMatchObject({
      type: 'oauth',
      scheme: 'Bearer',
      issuer: as.issuer,
      resource: resourceOf('machines'),
      resource_metadata: `${gatewayUrl}/.well-known/oauth-protected-resource/w/machines/mcp`,
    });
    expect(body.auth).not.toHaveProperty('key_id');
    expect(body.auth).not.toHaveProperty('env_var');
    expect(Object.keys(body.clients).sort()).toEqual([
      'claude_code',
      'claude_desktop',
      'cursor',
      'vscode',
      'windsurf',
    ]);
    const clients = JSON.stringify(body.clients);
    expect(clients).not.toMatch(/authorization|AGENT_GATEWAY_API_KEY|header/i);
    expect(clients).toContain(resourceOf('machines'));
    for (const client of Object.values(body.clients)) expect(client.note).toContain(as.issuer);
    expect(body.clients['cursor']?.json).toEqual({
      mcpServers: { 'agent-gateway-machines': { url: resourceOf('machines') } },
    });
    expect(body.clients['claude_code']?.command).toBe(
      `claude mcp add --transport http agent-gateway-machines ${resourceOf('machines')}`,
    );

    // An API key on the same gateway: the key answer, unchanged.
    const keyed = await get(`${gatewayUrl}/agent/mcp/config?response_format=json`, writerKey.key);
    const keyBody = (await keyed.json()) as { auth: Record<string, unknown>; clients: unknown };
    expect(keyBody.auth).toEqual({
      header: 'Authorization',
      scheme: 'Bearer',
      key_id: writerKey.id,
      key_hint: `agw_${writerKey.id}_…`,
      env_var: 'AGENT_GATEWAY_API_KEY',
    });
    expect(keyBody.clients).toEqual(clientConfigs(`${gatewayUrl}/mcp`, 'agent-gateway-payments'));
  });

  it('oauth:no-token-in-logs — no access token and no claim value reaches the log', () => {
    const needles = tokensSeen
      .filter((t) => t !== '')
      .map((value, i) => ({ label: `token ${i}`, value, windows: false }));
    needles.push(
      { label: 'subject alice', value: 'alice', windows: false },
      { label: 'group claim', value: 'payments-agents', windows: false },
    );
    expect(needles.length).toBeGreaterThan(5);
    expect(findLeaks(h.logs, needles)).toEqual([]);
  });
});
