// examples/oidc.yaml as shipped (issue 29): started with OIDC_ISSUER naming the tests' authorization
// server and GATEWAY_PUBLIC_URL, the SDK v2 client signs in through the 401 with no manual step; any
// identity of the issuer reads, and one holding mcp:write writes. The 401 asks for mcp:read only
// (issue 37, least privilege): a write call steps up to mcp:write. The authorization server lets a
// dynamically registered client ask for both later (docs/configuration.md, step-up and DCR).
import {
  Client,
  ClientCredentialsProvider,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../gateway/main.js';
import { createPinoLogger } from '../../gateway/telemetry/index.js';
import { freePort } from '../infra/free-port.js';
import { startAuthServer, type AuthServer } from '../infra/oidc-provider.js';
import { logLines, mcpPost } from '../support/gateway-harness.js';
import {
  clientCredentialsToken,
  connectWithLogin,
  HeadlessOAuthProvider,
  machineClient,
  withStepUp,
} from '../support/oauth-clients.js';

let as: AuthServer;
let gateway: RunningGateway;
let url: string;

beforeAll(async () => {
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  as = await startAuthServer({
    resources: { [`${url}/mcp`]: { scope: 'mcp:read mcp:write' } },
    scopes: ['mcp:read', 'mcp:write'],
    dynamicClientScope: 'mcp:read mcp:write',
    clients: [machineClient('reader-bot', 'reader-bot-secret-0123456789')],
  });
  gateway = await startGateway({
    configPath: 'examples/oidc.yaml',
    port,
    logger: createPinoLogger({ level: 'info', destination: logLines([]) }),
    env: { OIDC_ISSUER: as.issuer, GATEWAY_PUBLIC_URL: url, PATH: process.env['PATH'] ?? '' },
  });
}, 60_000);

afterAll(async () => {
  await gateway.stop();
  await as.stop();
});

describe('examples/oidc.yaml', () => {
  it('oauth:example-config — a person signs in from the 401 with mcp:read and steps up to write; a machine steps up by itself; a token with mcp:read only reads', async () => {
    const person = new HeadlessOAuthProvider('erin');
    const client = await connectWithLogin(url, person, 'auto');
    expect(person.tokens()?.scope).toBe('mcp:read');
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('demo__add');
    expect(names).not.toContain('demo__create_note');
    const { result: created, steppedUp } = await withStepUp(
      url,
      person,
      'auto',
      (c) => c.callTool({ name: 'demo__create_note', arguments: { title: 'a', body: 'b' } }),
      client,
    );
    expect(steppedUp).toBe(true);
    expect(created.isError ?? false).toBe(false);
    await client.close();

    // A machine: the SDK asks for the challenge's mcp:read, and on a write call steps up by itself
    // (client credentials need no one to sign in)…
    const machine = new Client({ name: 'reader-bot', version: '1.0.0' });
    await machine.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
        authProvider: new ClientCredentialsProvider({
          clientId: 'reader-bot',
          clientSecret: 'reader-bot-secret-0123456789',
          expectedIssuer: as.issuer,
        }),
      }),
    );
    expect((await machine.listTools()).tools.map((t) => t.name)).not.toContain('demo__create_note');
    const written = await machine.callTool({
      name: 'demo__create_note',
      arguments: { title: 'm', body: 'n' },
    });
    expect(written.isError ?? false).toBe(false);
    await machine.close();
    // …and a token granted mcp:read alone only reads.
    const token = await clientCredentialsToken(as.issuer, {
      clientId: 'reader-bot',
      clientSecret: 'reader-bot-secret-0123456789',
      resource: `${url}/mcp`,
    });
    const listed = (await (await mcpPost(url, token, { method: 'tools/list' })).json()) as {
      result: { tools: { name: string }[] };
    };
    const readable = listed.result.tools.map((t) => t.name);
    expect(readable).toContain('demo__add');
    expect(readable).not.toContain('demo__create_note');
  }, 60_000);
});
