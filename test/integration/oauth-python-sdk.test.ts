// The published Python SDK (`mcp` 2.3.0, test/infra/ensure-python-mcp.sh) signs in to the gateway
// through OAuth (issue 29), in both eras, with no manual step: test/fixtures/clients/oauth_sign_in.py
// drives `ClientCredentialsOAuthProvider` (a machine) and `OAuthClientProvider` (a person: PKCE,
// `resource`, the test authorization server's login forms walked headlessly) from the gateway's 401
// through protected-resource metadata, authorization server metadata and the token endpoint to
// tools/call; a read identity calling a write tool gets 403 insufficient_scope, which the SDK answers
// with a step-up (granted for a person and a machine allowed the scope; refused by the authorization
// server for a machine that is not). People sign in to `payments`, the default workspace, at /mcp;
// machines to `machines` at its own resource, /w/machines/mcp (D24).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../infra/free-port.js';
import { startAuthServer, type AuthServer } from '../infra/oidc-provider.js';
import { demoSource, startHarness, type Harness } from '../support/gateway-harness.js';
import { machineClient, publicClient, signInServer } from '../support/oauth-clients.js';

const PYTHON_CACHE = process.env['AGW_PYTHON_MCP_CACHE'] ?? join(homedir(), '.cache', 'agw-python-mcp');
const PYTHON = join(PYTHON_CACHE, 'venv', 'bin', 'python');
const MACHINE_SECRET = 'machine-secret-value-0123456789';
const READER_SECRET = 'reader-secret-value-9876543210';

interface Exchange {
  method: string;
  host: string;
  path: string;
  status: number;
  challenge_error?: string;
  challenge_scope?: string;
  resource_metadata?: boolean;
}

type Outcome = { isError: boolean; text: string } | { error: { code?: number; type?: string } };

interface SignIn {
  tools: string[];
  read?: Outcome;
  write?: Outcome;
  exchanges: Exchange[];
  logins: number;
  scopes_asked: string[];
  registered: boolean;
  token?: { scope?: string; aud?: string | string[]; sub?: string };
  /** The session ended on an auth flow failure (a refused step-up). */
  failed?: { type: string; message: string };
  error?: { type: string; message: string };
}

let as: AuthServer;
let h: Harness;
let gatewayUrl: string;
let resource: string;
/** The machines workspace's own resource. */
let machines: string;

function signIn(
  args: readonly string[],
  mode: 'auto' | 'legacy',
  secret = '',
  url = resource,
): Promise<SignIn> {
  if (!existsSync(join(PYTHON_CACHE, 'installed')) || !existsSync(PYTHON))
    throw new Error(`the Python MCP SDK is not installed: run \`bash test/infra/ensure-python-mcp.sh\``);
  const script = resolve('test/fixtures/clients/oauth_sign_in.py');
  return new Promise((done, fail) => {
    execFile(
      PYTHON,
      [script, '--url', url, '--mode', mode, '--issuer', as.issuer, ...args],
      {
        env: { PATH: process.env['PATH'] ?? '', AGW_CLIENT_SECRET: secret },
        timeout: 60_000,
        maxBuffer: 8 << 20,
      },
      (error, stdout, stderr) => {
        if (secret !== '' && (stdout + stderr).includes(secret))
          return fail(new Error('the script printed the secret'));
        const last = stdout.trim().split('\n').at(-1) ?? '';
        if (error !== null && !last.startsWith('{')) return fail(new Error(`${stdout}${stderr}`));
        done(JSON.parse(last) as SignIn);
      },
    );
  });
}

/** The exchanges as `METHOD where path status`, `where` naming the gateway or the AS. */
function trail(seen: SignIn): string[] {
  const gateway = new URL(gatewayUrl).host;
  return seen.exchanges.map(
    (e) =>
      `${e.method} ${e.host === gateway ? 'gw' : 'as'} ${e.path} ${e.status}` +
      (e.challenge_error === undefined ? '' : ` ${e.challenge_error}`) +
      (e.challenge_scope === undefined ? '' : ` scope=${e.challenge_scope}`),
  );
}

/** `steps` occur in `lines` in this order (others may come between). */
function inOrder(lines: readonly string[], steps: readonly RegExp[]): boolean {
  let at = 0;
  for (const line of lines) if (at < steps.length && steps[at]!.test(line)) at += 1;
  return at === steps.length;
}

/** The exchanges of a sign-in at the resource whose gateway path is `path`. */
function signInSteps(path: string): RegExp[] {
  const at = path.replace(/\//g, '\\/');
  return [
    new RegExp(`^POST gw ${at} 401 scope=mcp:read$`),
    new RegExp(`^GET gw \\/\\.well-known\\/oauth-protected-resource${at} 200$`),
    /^GET as \/\.well-known\/(oauth-authorization-server|openid-configuration) 200$/,
    /^POST as \/token 200$/,
    new RegExp(`^POST gw ${at} 200$`),
  ];
}
function stepUpSteps(path: string): RegExp[] {
  const at = path.replace(/\//g, '\\/');
  return [
    new RegExp(`^POST gw ${at} 403 insufficient_scope scope=mcp:read mcp:write$`),
    /^POST as \/token 200$/,
    new RegExp(`^POST gw ${at} 200$`),
  ];
}
const SIGN_IN = signInSteps('/mcp');
const STEP_UP = stepUpSteps('/mcp');
const MACHINE_SIGN_IN = signInSteps('/w/machines/mcp');
const MACHINE_STEP_UP = stepUpSteps('/w/machines/mcp');

beforeAll(async () => {
  const port = await freePort();
  gatewayUrl = `http://127.0.0.1:${port}`;
  resource = `${gatewayUrl}/mcp`;
  machines = `${gatewayUrl}/w/machines/mcp`;
  as = await startAuthServer({
    resources: {
      [resource]: { scope: 'mcp:read mcp:write' },
      [machines]: { scope: 'mcp:read mcp:write' },
    },
    scopes: ['mcp:read', 'mcp:write'],
    clients: [
      publicClient('agw-public'),
      machineClient('machine', MACHINE_SECRET, { scope: 'mcp:read mcp:write' }),
      machineClient('reader', READER_SECRET, { scope: 'mcp:read' }),
    ],
    tokenClaims: (account) => ({ groups: account === 'alice' ? ['payments-agents'] : ['staff'] }),
  });
  const issuer = as.issuer;
  const writeWithScope = (name: string, claim: Record<string, string>) => [
    {
      name: `${name}-writers`,
      issuer,
      when: [claim, { claim: 'scope', contains: 'mcp:write' }],
      access: 'write',
    },
    { name: `${name}-readers`, issuer, when: [claim] },
  ];
  h = await startHarness({
    ...signInServer(port, gatewayUrl, 'payments'),
    workspaces: [
      {
        name: 'payments',
        mcpSources: [demoSource('demo')],
        identity: {
          issuers: [{ issuer }],
          rules: writeWithScope('people', { claim: 'groups', contains: 'payments-agents' }),
        },
      },
      {
        name: 'machines',
        mcpSources: [demoSource('robot')],
        identity: {
          issuers: [{ issuer }],
          rules: [
            ...writeWithScope('machine', { claim: 'client_id', equals: 'machine' }),
            ...writeWithScope('reader', { claim: 'client_id', equals: 'reader' }),
          ],
        },
      },
    ],
  });
}, 60_000);

afterAll(async () => {
  await h?.stop();
  await as?.stop();
});

const ADD = ['--read-args', JSON.stringify({ a: 2, b: 40 })];
const NOTE = ['--write-args', JSON.stringify({ title: 'py', body: 'from python' })];

describe('the Python SDK signs in through the gateway’s 401', () => {
  for (const mode of ['auto', 'legacy'] as const) {
    it(`oauth:python-client-credentials — (${mode}) ClientCredentialsOAuthProvider: 401 → metadata → token for the gateway → tools/call; the write tool's 403 is stepped up`, async () => {
      const seen = await signIn(
        [
          '--flow',
          'client-credentials',
          '--client-id',
          'machine',
          '--read-tool',
          'robot__add',
          ...ADD,
          '--write-tool',
          'robot__create_note',
          ...NOTE,
        ],
        mode,
        MACHINE_SECRET,
        machines,
      );
      expect(seen.error).toBeUndefined();
      expect(seen.failed).toBeUndefined();
      const lines = trail(seen);
      expect(inOrder(lines, [...MACHINE_SIGN_IN, ...MACHINE_STEP_UP]), lines.join('\n')).toBe(true);
      expect(seen.exchanges.find((e) => e.status === 401)?.resource_metadata).toBe(true);
      expect(seen.tools).toContain('robot__add');
      expect(seen.tools.some((t) => t.startsWith('demo__'))).toBe(false);
      expect(seen.read).toMatchObject({ isError: false, text: expect.stringContaining('42') });
      expect(seen.write).toMatchObject({ isError: false });
      expect(seen.token).toMatchObject({ aud: machines, sub: 'machine' });
      expect(seen.token?.scope?.split(' ')).toEqual(expect.arrayContaining(['mcp:read', 'mcp:write']));
    }, 90_000);

    it(`oauth:python-step-up-refused — (${mode}) a machine read identity gets 403 insufficient_scope on a write tool; the authorization server will not widen it`, async () => {
      const seen = await signIn(
        [
          '--flow',
          'client-credentials',
          '--client-id',
          'reader',
          '--write-tool',
          'robot__create_note',
          ...NOTE,
        ],
        mode,
        READER_SECRET,
        machines,
      );
      expect(seen.error).toBeUndefined();
      const lines = trail(seen);
      expect(inOrder(lines, [...MACHINE_SIGN_IN, MACHINE_STEP_UP[0] as RegExp]), lines.join('\n')).toBe(true);
      // The SDK asks for both scopes; the authorization server refuses this client mcp:write.
      expect(lines.filter((l) => /^POST as \/token 200$/.test(l))).toHaveLength(1);
      expect(lines.at(-1)).toMatch(/^POST as \/token 400$/);
      expect(seen.failed?.type).toBe('OAuthTokenError');
      expect(seen.write).toBeUndefined();
      expect(seen.token?.scope).toBe('mcp:read');
    }, 90_000);

    it(`oauth:python-authorization-code — (${mode}) OAuthClientProvider: 401 → metadata → PKCE login with resource → tools/call; a read person steps up to write`, async () => {
      const seen = await signIn(
        [
          '--flow',
          'authorization-code',
          '--client-id',
          'agw-public',
          '--login',
          'alice',
          '--read-tool',
          'demo__add',
          ...ADD,
          '--write-tool',
          'demo__create_note',
          ...NOTE,
        ],
        mode,
      );
      expect(seen.error).toBeUndefined();
      expect(seen.failed).toBeUndefined();
      const lines = trail(seen);
      expect(inOrder(lines, [...SIGN_IN, ...STEP_UP]), lines.join('\n')).toBe(true);
      expect(seen.logins).toBe(2);
      const asked = seen.scopes_asked.map((scope) => scope.split(' '));
      expect(asked).toHaveLength(2);
      expect(asked[0]).toContain('mcp:read');
      expect(asked[0]).not.toContain('mcp:write');
      expect(asked[1]).toEqual(expect.arrayContaining(['mcp:read', 'mcp:write']));
      expect(seen.tools).toContain('demo__add');
      expect(seen.tools).not.toContain('demo__create_note');
      expect(seen.read).toMatchObject({ isError: false, text: expect.stringContaining('42') });
      expect(seen.write).toMatchObject({ isError: false });
      expect(seen.token).toMatchObject({ aud: resource, sub: 'alice' });
    }, 90_000);
  }

  it('oauth:python-registration — OAuthClientProvider registers itself (DCR) when it has no client', async () => {
    const seen = await signIn(
      ['--flow', 'authorization-code', '--login', 'alice', '--read-tool', 'demo__add', ...ADD],
      'auto',
    );
    expect(seen.error).toBeUndefined();
    expect(seen.failed).toBeUndefined();
    const lines = trail(seen);
    expect(
      inOrder(lines, [SIGN_IN[0]!, SIGN_IN[1]!, SIGN_IN[2]!, /^POST as \/reg 201$/, ...SIGN_IN.slice(3)]),
      lines.join('\n'),
    ).toBe(true);
    expect(seen.registered).toBe(true);
    expect(seen.read).toMatchObject({ isError: false, text: expect.stringContaining('42') });
  }, 90_000);

  it('oauth:python-no-secret-in-log — neither client secret reaches the gateway log', () => {
    const text = h.logs.join('\n');
    expect(text).not.toContain(MACHINE_SECRET);
    expect(text).not.toContain(READER_SECRET);
  });
});
