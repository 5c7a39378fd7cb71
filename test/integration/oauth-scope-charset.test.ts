// Scopes that cannot go into a header (issue 37, item 6), against a real issuer's key
// (oidc-provider): a token whose own `scope` holds NUL, CR/LF, U+2028 or `é`, calling a write tool,
// gets the ordinary 403 step-up with a valid WWW-Authenticate (those scope tokens left out) and its
// request id; a config whose write rule names such a scope is refused at load, naming the path. Both
// once made the step-up challenge throw in setHeader: a 500 with Fastify's default body, no request
// id, connection closed.
import { importJWK, SignJWT, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InvalidConfigError } from '../../gateway/config/index.js';
import { freePort } from '../infra/free-port.js';
import { startAuthServer, type AuthServer } from '../infra/oidc-provider.js';
import { demoSource, mcpPost, startHarness, type Harness } from '../support/gateway-harness.js';

let as: AuthServer;
let h: Harness;
let gatewayUrl: string;
let realKey: CryptoKey;

function rules(writeScope: string): Record<string, unknown>[] {
  return [
    { name: 'writers', issuer: as.issuer, when: [{ claim: 'scope', contains: writeScope }], access: 'write' },
    { name: 'readers', issuer: as.issuer },
  ];
}

function document(port: number, writeScope: string): Record<string, unknown> {
  return {
    server: { host: '127.0.0.1', port, publicUrl: `http://127.0.0.1:${port}` },
    // The shared resource admits tokens for the default workspace only (D24).
    oauth: { scopesSupported: ['mcp:read', 'mcp:write'], defaultWorkspace: 'notes' },
    workspaces: [
      {
        name: 'notes',
        mcpSources: [demoSource('demo')],
        identity: { issuers: [{ issuer: as.issuer }], rules: rules(writeScope) },
      },
    ],
  };
}

function token(url: string, scope: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ iss: as.issuer, aud: `${url}/mcp`, sub: 'alice', scope, iat: now, exp: now + 300 })
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'fixture-es256' })
    .sign(realKey);
}

function writeCall(url: string, bearer: string): Promise<Response> {
  return mcpPost(url, bearer, {
    id: 1,
    method: 'tools/call',
    params: { name: 'demo__create_note', arguments: { title: 't', body: 'b' } },
  });
}

beforeAll(async () => {
  as = await startAuthServer({ resources: {} });
  realKey = (await importJWK(as.signingKey, 'ES256')) as CryptoKey;
  const port = await freePort();
  gatewayUrl = `http://127.0.0.1:${port}`;
  h = await startHarness(document(port, 'mcp:write'));
}, 60_000);

afterAll(async () => {
  await h?.stop();
  await as?.stop();
});

describe('scopes in the step-up challenge', () => {
  it('oauth:scope-charset-step-up — a token scope with NUL, CR/LF, U+2028 or é still gets a valid 403 step-up with its request id', async () => {
    for (const odd of ['a\u0000b', 'x\r\ny', 'p\u2028q', 'caf\u00e9']) {
      const response = await writeCall(gatewayUrl, await token(gatewayUrl, `mcp:read ${odd}`));
      expect(response.status, JSON.stringify(odd)).toBe(403);
      expect(response.headers.get('x-request-id')).toBeTruthy();
      const challenge = response.headers.get('www-authenticate') ?? '';
      expect(challenge).toMatch(/^[\x20-\x7E]+$/);
      expect(challenge).toContain('error="insufficient_scope"');
      expect(challenge).toContain('scope="mcp:read mcp:write"');
      const body = (await response.json()) as { id: number; error: { data: { code: string } } };
      expect(body.id).toBe(1);
      expect(body.error.data.code).toBe('insufficient_scope');
    }
  });

  it('oauth:scope-charset-rule — a write rule whose scope holds U+2028 is refused at load, naming its path (it made the step-up a 500)', async () => {
    const port = await freePort();
    const outcome = await startHarness(document(port, 'mcp:write\u2028')).then(
      async (started) => {
        try {
          const url = `http://127.0.0.1:${port}`;
          const response = await writeCall(url, await token(url, 'mcp:read'));
          return `started; the step-up answered ${response.status}`;
        } finally {
          await started.stop();
        }
      },
      (error: InvalidConfigError) => error.problems.map((problem) => problem.path).join(', '),
    );
    expect(outcome).toContain('workspaces[0].identity.rules[0].when[0].contains');
  });
});
