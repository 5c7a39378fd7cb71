// Policy over calls in CEL (issue 41 part 3) end to end: a real gateway over the demo MCP server,
// driven by the SDK v2 client (2026-07-28), the SDK v1 client (2025 era), call_tool (progressive
// disclosure) and an OAuth caller whose token a real issuer's key signed and whose claims a rule
// reads. A refusal is the same in-band permission error everywhere, with the rule's name and
// message; the audit record names the rule, never the arguments; a rule that does not compile is
// refused at reload with its path while the last good config keeps serving.
import { readFile } from 'node:fs/promises';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { importJWK, SignJWT, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { freePort } from '../infra/free-port.js';
import { startAuthServer, type AuthServer } from '../infra/oidc-provider.js';
import { auditRecords } from '../support/audit-records.js';
import { until } from '../support/until.js';
import { demoSource, keyRecord, newKeys, startHarness, type Harness } from '../support/gateway-harness.js';
import { connectClient, rpcCall, type RpcAnswer } from '../support/mcp-clients.js';

const [writer, searcher, narrow] = newKeys(3);
const FORBIDDEN = -31003;

const POLICIES = [
  {
    name: 'no-secret-notes',
    tools: ['demo__create_note'],
    effect: 'deny',
    when: "args.title.startsWith('secret')",
    message: 'notes titled secret… are not allowed',
  },
  {
    name: 'small-sums',
    tools: ['demo__add'],
    effect: 'allow',
    when: 'args.a + args.b < 100',
    message: 'add only sums under 100',
  },
  {
    name: 'echo-for-payments',
    tools: ['demo__echo'],
    effect: 'deny',
    when: "principal.kind == 'oauth' && principal.claims.team != 'payments'",
    message: 'echo is for the payments team',
  },
];

let as: AuthServer;
let h: Harness;
let url: string;
let signingKey: CryptoKey;

async function token(claims: Record<string, unknown>): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ iss: as.issuer, aud: `${url}/mcp`, sub: 'alice', iat: now, exp: now + 300, ...claims })
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'fixture-es256' })
    .sign(signingKey);
}

beforeAll(async () => {
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  as = await startAuthServer({ resources: { [`${url}/mcp`]: { scope: 'mcp:read' } }, scopes: ['mcp:read'] });
  signingKey = (await importJWK(as.signingKey, 'ES256')) as CryptoKey;
  h = await startHarness({
    server: { host: '127.0.0.1', port, publicUrl: url },
    oauth: { defaultWorkspace: 'demo' },
    workspaces: [
      {
        name: 'demo',
        mcpSources: [demoSource('demo')],
        governance: { policies: POLICIES },
        keys: [
          keyRecord(writer, { access: 'write' }),
          keyRecord(searcher, { access: 'write', toolDisclosure: 'search' }),
          keyRecord(narrow, {
            access: 'write',
            policies: [
              {
                name: 'no-shouting',
                tools: ['demo__echo'],
                effect: 'deny',
                when: 'args.text.matches("^[A-Z !]+$")',
                message: 'this key may not shout',
              },
            ],
          }),
        ],
        identity: {
          issuers: [{ issuer: as.issuer }],
          rules: [{ name: 'anyone', issuer: as.issuer, access: 'write' }],
        },
      },
    ],
  });
}, 60_000);

afterAll(async () => {
  await h?.stop();
  await as?.stop();
});

/** What a client saw: the tool's text, or the JSON-RPC error's code and message. */
type Seen = { text: string } | { code: number; message: string };

function seen(call: () => Promise<{ content?: unknown }>): Promise<Seen> {
  return call().then(
    (result) => ({ text: (result.content as { text: string }[] | undefined)?.[0]?.text ?? '' }),
    (error: { code: number; message: string }) => ({ code: error.code, message: error.message }),
  );
}

const refusal = (policy: string, message: string, tool: string) => ({
  code: FORBIDDEN,
  message: expect.stringContaining(
    `Permission denied: ${message} (policy ${policy}, tool ${tool}).`,
  ) as unknown,
});

describe('the same decisions in both eras', () => {
  it('policy:modern-and-legacy-clients — deny and allow rules over arguments, with the rule named', async () => {
    const modern = await connectClient(url, writer.key, 'auto');
    const legacy = new LegacyClient({ name: 'legacy-it', version: '1.0.0' });
    await legacy.connect(
      new LegacyTransport(new URL(`${url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${writer.key}` } },
      }),
    );
    try {
      for (const client of [modern, legacy]) {
        const call = (name: string, args: Record<string, unknown>) =>
          seen(() => client.callTool({ name, arguments: args }) as Promise<{ content?: unknown }>);
        expect(await call('demo__create_note', { title: 'secret plan', body: 'b' })).toEqual(
          refusal('no-secret-notes', 'notes titled secret… are not allowed', 'demo__create_note'),
        );
        expect(await call('demo__create_note', { title: 'groceries', body: 'b' })).toEqual({
          text: expect.any(String),
        });
        expect(await call('demo__add', { a: 3, b: 4 })).toEqual({ text: '7' });
        expect(await call('demo__add', { a: 60, b: 50 })).toEqual(
          refusal('small-sums', 'add only sums under 100', 'demo__add'),
        );
        // An API key: the OAuth-only rule is false for it.
        expect(await call('demo__echo', { text: 'hi' })).toEqual({ text: 'hi' });
      }
    } finally {
      await modern.close();
      await legacy.close();
    }
  });

  it("policy:key-rules — a key's own rules apply to it only", async () => {
    const shout = { name: 'demo__echo', arguments: { text: 'HELLO' } };
    const denied = await rpcCall(url, narrow.key, 'tools/call', shout);
    expect(denied.error).toMatchObject({
      code: FORBIDDEN,
      message: 'Permission denied: this key may not shout (policy no-shouting, tool demo__echo).',
      data: { code: 'forbidden', class: 'proxy_authorization', policy: 'no-shouting' },
    });
    expect((await rpcCall(url, writer.key, 'tools/call', shout)).result).toBeDefined();
  });
});

describe('call_tool', () => {
  it('policy:call-tool — the inner call is decided as if it were made directly', async () => {
    const call = (args: Record<string, unknown>) =>
      rpcCall(url, searcher.key, 'tools/call', {
        name: 'call_tool',
        arguments: { name: 'demo__create_note', arguments: args },
      });
    const denied = await call({ title: 'secret two', body: 'x' });
    expect(denied.error).toMatchObject({ code: FORBIDDEN, data: { policy: 'no-secret-notes' } });
    const allowed: RpcAnswer = await call({ title: 'fine', body: 'x' });
    expect(allowed.error).toBeUndefined();
    expect(allowed.result?.['isError']).not.toBe(true);
  });
});

describe('an OAuth caller', () => {
  it("policy:oauth-claims — a rule reads the token's claims", async () => {
    const echo = { name: 'demo__echo', arguments: { text: 'from oauth' } };
    const payments = await rpcCall(url, await token({ team: 'payments' }), 'tools/call', echo);
    expect(payments.error).toBeUndefined();
    const ops = await rpcCall(url, await token({ team: 'ops' }), 'tools/call', echo);
    expect(ops.error).toMatchObject({
      code: FORBIDDEN,
      message:
        'Permission denied: echo is for the payments team (policy echo-for-payments, tool demo__echo).',
    });
    // No `team` claim at all: the rule cannot be evaluated, and the call is refused (fail closed)
    // without any claim or argument value in the answer.
    const none = await rpcCall(url, await token({}), 'tools/call', echo);
    expect(none.error).toMatchObject({ code: FORBIDDEN, data: { policy: 'echo-for-payments' } });
    expect(none.error?.message).toBe(
      'Permission denied: this call could not be checked against the policy, so it is refused (policy echo-for-payments, tool demo__echo).',
    );
  });
});

describe('audit and config', () => {
  it('policy:audit — the record names the rule and the reason, never the arguments', async () => {
    // The audit sink writes in batches (up to 20 ms later): wait for the last refusal's record.
    const rules = ['no-secret-notes', 'small-sums', 'no-shouting', 'echo-for-payments'];
    const denied = await until(
      'the refusals in the audit trail',
      async () => {
        const found = (await auditRecords(h.auditPath)).filter((record) => record.reason === 'policy');
        return rules.every((rule) => found.some((record) => record.policy === rule)) &&
          found.some((record) => record.relayed_by === 'call_tool')
          ? found
          : undefined;
      },
      10_000,
    );
    expect(denied.map((record) => record.policy)).toEqual(
      expect.arrayContaining(['no-secret-notes', 'small-sums', 'no-shouting', 'echo-for-payments']),
    );
    expect(denied.every((record) => record.decision === 'denied' && record.error_code === 'forbidden')).toBe(
      true,
    );
    const relayed = denied.find((record) => record.relayed_by === 'call_tool');
    expect(relayed).toMatchObject({ policy: 'no-secret-notes', target: { name: 'demo__create_note' } });
    const text = await readFile(h.auditPath, 'utf8');
    for (const value of ['secret plan', 'secret two', 'HELLO', 'from oauth'])
      expect(text).not.toContain(value);
  });

  it('policy:reload-refused — a rule that does not compile is refused with its path; the last good rules stay', async () => {
    const before = h.gateway.config.current().revision;
    const current = parse(await readFile(h.configPath, 'utf8')) as { workspaces: Record<string, unknown>[] };
    const broken = structuredClone(current);
    broken.workspaces[0]!['governance'] = {
      policies: [...POLICIES, { ...POLICIES[0], name: 'broken', when: 'args.title.startsWith(' }],
    };
    const seenLogs = h.logs.length;
    await h.writeConfig(broken);
    const deadline = Date.now() + 10_000;
    const rejected = () => h.logs.slice(seenLogs).find((line) => line.includes('config change rejected'));
    while (rejected() === undefined && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(rejected()).toContain('workspaces[0].governance.policies[3].when: does not parse');
    expect(h.gateway.config.current().revision).toBe(before);
    const still = await rpcCall(url, writer.key, 'tools/call', {
      name: 'demo__create_note',
      arguments: { title: 'secret three', body: 'x' },
    });
    expect(still.error).toMatchObject({ data: { policy: 'no-secret-notes' } });
  });
});
