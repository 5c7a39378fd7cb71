// The published Python SDK (`mcp` 2.3.0, test/infra/ensure-python-mcp.sh) meets a `user` source
// (issue 42) in both eras, with real parts on every side: oidc-provider as the SaaS authorization
// server and an MCP server that accepts only its tokens for its own audience (support/user-source.ts),
// the gateway from its composition root. test/fixtures/clients/connect_and_call.py calls whoami; the
// gateway asks it to connect with a URL elicitation — at 2026-07-28 an `input_required` result the
// SDK's own driver hands to its elicitation callback and retries, at 2025-11-25 the -32042
// URLElicitationRequiredError the SDK raises as an MCPError (the script reads the elicitation from
// its data and retries the call). The script prints the link and waits; the test is the person:
// it opens the link's ticket in the consent flow (support/user-consent.ts), signs in at the SaaS as
// that user and approves, and tells the script to go on. The retried call is served as that user.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../infra/free-port.js';
import { newKeys, startHarness, type Harness } from '../support/gateway-harness.js';
import { runInteractivePythonClient } from '../support/python-client.js';
import { connectAccount, ticketOf } from '../support/user-consent.js';
import { connectionsOf, saasWorkspace, startSaas, type Saas } from '../support/user-source.js';

const CONNECTION_KEY = 'python-connection-key-0123456789-abcdefgh';
const [alice, bob] = newKeys(2);

interface Asked {
  via: 'elicitation/create' | 'error';
  mode: string;
  url: string;
  message: string;
  code?: number;
  elicitation_id?: string;
  user?: string;
}

type CallOutcome =
  | { isError: boolean; text: string; structured?: { sub?: string; scope?: string } | null }
  | { error: { code: number; message: string } };

interface Seen {
  protocol_version: string;
  asked: Asked[];
  calls: CallOutcome[];
}

let saas: Saas;
let h: Harness;
let publicUrl: string;

beforeAll(async () => {
  saas = await startSaas();
  const port = await freePort();
  publicUrl = `http://127.0.0.1:${port}`;
  h = await startHarness(
    {
      server: { host: '127.0.0.1', port, publicUrl },
      userConnections: { encryption: { keys: [{ env: 'AGW_CONNECTION_KEY' }] } },
      workspaces: [saasWorkspace(saas, [alice, bob])],
    },
    { AGW_CONNECTION_KEY: CONNECTION_KEY },
  );
}, 60_000);

afterAll(async () => {
  await h?.stop();
  await saas?.stop();
});

/** Runs the script as `key`'s user: each link it shows is consented to as `account` at the SaaS. */
async function connectAndCall(key: string, account: string, mode: 'auto' | 'legacy'): Promise<Seen> {
  return runInteractivePythonClient<Seen>(
    'connect_and_call.py',
    h.url,
    key,
    mode,
    ['--tool', 'saas__whoami', '--again'],
    async (line) => {
      const shown = line['elicitation'] as Asked | undefined;
      if (shown === undefined) return undefined;
      expect(shown.url.startsWith(`${publicUrl}/connect?ticket=`)).toBe(true);
      const done = await connectAccount(h.url, key, { ticket: ticketOf(shown.url) }, account);
      expect(done.status).toBe(200);
      expect(done.text).toContain('Connected');
      return 'connected';
    },
  );
}

describe('the Python SDK is asked to connect an account and then served as that user', () => {
  it('user-oauth:python-modern — (2026-07-28) input_required with a URL elicitation reaches the SDK’s elicitation callback; its automatic retry is served as the user', async () => {
    const seen = await connectAndCall(alice.key, 'alice', 'auto');
    expect(seen.protocol_version).toBe('2026-07-28');
    expect(seen.asked).toEqual([
      expect.objectContaining({ via: 'elicitation/create', mode: 'url', user: 'connected' }),
    ]);
    expect(seen.asked[0]?.message).toContain('connect your saas account');
    // The first call came back (after the SDK's retry) as alice; the second was not asked again.
    expect(seen.calls).toEqual([
      expect.objectContaining({ isError: false, structured: { sub: 'alice', scope: 'tools:read' } }),
      expect.objectContaining({ isError: false, structured: { sub: 'alice', scope: 'tools:read' } }),
    ]);
    expect(saas.upstream.accepted.filter((call) => call.tool === 'whoami').at(-1)?.sub).toBe('alice');
    expect(await connectionsOf(h.url, alice.key)).toEqual([
      expect.objectContaining({ source: 'saas', connected: true, issuer: saas.as.issuer }),
    ]);
  }, 90_000);

  it('user-oauth:python-legacy — (2025-11-25) the SDK raises the -32042 error with data.elicitations; after the consent the retried call is served as the user', async () => {
    const seen = await connectAndCall(bob.key, 'bob', 'legacy');
    expect(seen.protocol_version).toBe('2025-11-25');
    expect(seen.asked).toEqual([
      expect.objectContaining({ via: 'error', code: -32042, mode: 'url', user: 'connected' }),
    ]);
    expect(seen.asked[0]?.elicitation_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen.calls).toEqual([
      expect.objectContaining({ isError: false, structured: { sub: 'bob', scope: 'tools:read' } }),
      expect.objectContaining({ isError: false, structured: { sub: 'bob', scope: 'tools:read' } }),
    ]);
    expect(saas.upstream.accepted.filter((call) => call.tool === 'whoami').at(-1)?.sub).toBe('bob');
  }, 90_000);

  it('user-oauth:python-no-token-in-log — neither key nor any upstream token reaches the gateway log', () => {
    const logs = h.logs.join('\n');
    for (const key of [alice.key, bob.key]) expect(logs).not.toContain(key);
    expect(logs).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\.eyJ/);
    expect(logs).not.toContain('refresh_token');
  });
});
