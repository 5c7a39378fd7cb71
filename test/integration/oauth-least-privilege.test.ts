// Least privilege at sign-in (issue 37, item 9), with the config of examples/oidc.yaml (scopes
// mcp:read and mcp:write advertised, no `challengeScopes`) and the real SDK v2 client registering
// itself dynamically at a real authorization server (oidc-provider). The 401 names only the scopes
// no write rule alone needs (mcp:read), so the first sign-in gets read; a write call gets the 403
// step-up for mcp:write, and the retry with the wider token succeeds. What the SDK registers with
// is the first challenge's scope, which an authorization server that caps a registered client at
// its registered scope (oidc-provider by default) turns into a ceiling: the step-up then fails
// there, as the second gateway below shows; the first widens what registered clients may ask for.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../infra/free-port.js';
import { headlessLogin, startAuthServer, type AuthServer } from '../infra/oidc-provider.js';
import { demoSource, mcpPost, startHarness, type Harness } from '../support/gateway-harness.js';
import { connectWithLogin, HeadlessOAuthProvider, withStepUp } from '../support/oauth-clients.js';

interface Setup {
  readonly as: AuthServer;
  readonly h: Harness;
  readonly url: string;
}

let open: Setup;
let capping: Setup;

/** A gateway configured as examples/oidc.yaml is, in front of its own authorization server. */
async function setup(dynamicClientScope: string | undefined): Promise<Setup> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const as = await startAuthServer({
    resources: { [`${url}/mcp`]: { scope: 'mcp:read mcp:write' } },
    scopes: ['mcp:read', 'mcp:write'],
    ...(dynamicClientScope === undefined ? {} : { dynamicClientScope }),
  });
  const h = await startHarness({
    server: { host: '127.0.0.1', port, publicUrl: url },
    // The shared resource admits tokens for the default workspace only (D24).
    oauth: { scopesSupported: ['mcp:read', 'mcp:write'], defaultWorkspace: 'demo' },
    workspaces: [
      {
        name: 'demo',
        mcpSources: [demoSource('demo')],
        identity: {
          issuers: [{ issuer: as.issuer }],
          rules: [
            {
              name: 'writers',
              issuer: as.issuer,
              when: [{ claim: 'scope', contains: 'mcp:write' }],
              access: 'write',
            },
            { name: 'everyone', issuer: as.issuer, access: 'read' },
          ],
        },
      },
    ],
  });
  return { as, h, url };
}

const createNote = { name: 'demo__create_note', arguments: { title: 'least', body: 'privilege' } };

beforeAll(async () => {
  open = await setup('mcp:read mcp:write');
  capping = await setup(undefined);
}, 60_000);

afterAll(async () => {
  for (const s of [open, capping]) {
    await s?.h.stop();
    await s?.as.stop();
  }
});

describe('the first sign-in asks for the least scope', () => {
  it('oauth:least-scope-challenge — without challengeScopes the 401 names the scopes no write rule alone needs', async () => {
    const response = await mcpPost(open.url, undefined, { method: 'tools/list' });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer realm="agent-gateway", resource_metadata="${open.url}/.well-known/oauth-protected-resource/mcp", scope="mcp:read"`,
    );
  });

  for (const mode of ['auto', 'legacy'] as const) {
    it(`oauth:least-privilege-sdk — (${mode}) the SDK v2 client registers, signs in with mcp:read only, steps up to mcp:write on a write call, and the retry succeeds`, async () => {
      const provider = new HeadlessOAuthProvider('alice');
      const registrations = open.as.registrationScopes.length;
      const client = await connectWithLogin(open.url, provider, mode);
      // What the SDK registered with: the first challenge's scope (and offline_access, which the
      // server advertises), not the host's clientMetadata.
      expect(open.as.registrationScopes.slice(registrations)).toEqual(['mcp:read offline_access']);
      expect(provider.tokens()?.scope).toBe('mcp:read');
      const names = (await client.listTools()).tools.map((t) => t.name);
      // A reader does not see write tools; the host calls one it knows of anyway.
      expect(names).toContain('demo__add');
      expect(names).not.toContain('demo__create_note');
      const { result, steppedUp } = await withStepUp(
        open.url,
        provider,
        mode,
        (c) => c.callTool(createNote),
        client,
      );
      expect(steppedUp).toBe(true);
      expect(provider.logins).toBe(2);
      expect(result.isError ?? false).toBe(false);
      expect(provider.tokens()?.scope?.split(' ')).toEqual(expect.arrayContaining(['mcp:read', 'mcp:write']));
      await client.close();
    }, 90_000);
  }

  it('oauth:least-privilege-capped-client — an authorization server that caps a registered client at its registered scope refuses the step-up (invalid_scope): the documented edge case', async () => {
    const provider = new HeadlessOAuthProvider('alice');
    const client = await connectWithLogin(capping.url, provider, 'auto');
    expect(provider.tokens()?.scope).toBe('mcp:read');
    // The write call's 403 sends the SDK back to the authorization server for both scopes.
    await expect(client.callTool(createNote)).rejects.toThrow();
    const again = provider.authorizationUrl;
    expect(again?.searchParams.get('scope')?.split(' ')).toEqual(
      expect.arrayContaining(['mcp:read', 'mcp:write']),
    );
    const callback = await headlessLogin(again ?? '', 'alice', provider.redirectUrl);
    expect(callback.searchParams.get('error')).toBe('invalid_scope');
    await client.close();
  }, 90_000);
});
