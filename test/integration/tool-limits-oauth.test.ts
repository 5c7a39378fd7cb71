// Whose counter an OAuth caller's tool call counts on (issue 41 part 4): a real authorization
// server (oidc-provider) issues client-credentials tokens to two machine clients that one identity
// rule admits, and an API key calls the same workspace. `per: subject` counts each signed-in subject
// and the key apart; `per: key` counts the callers one identity rule admits together, and a key on
// its own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModernServer, type RunningModernServer } from '../fixtures/upstreams/modern-server.js';
import { freePort } from '../infra/free-port.js';
import { startAuthServer, type AuthServer } from '../infra/oidc-provider.js';
import { keyRecord, mcpPost, newKey, startWorkspace, type Harness } from '../support/gateway-harness.js';
import { clientCredentialsToken, machineClient } from '../support/oauth-clients.js';

const apiKey = newKey();
let as: AuthServer;
let upstream: RunningModernServer;
let h: Harness;
let first: string;
let second: string;

beforeAll(async () => {
  const port = await freePort();
  const gatewayUrl = `http://127.0.0.1:${port}`;
  const resource = `${gatewayUrl}/mcp`;
  as = await startAuthServer({
    resources: { [resource]: { scope: 'mcp:read' } },
    clients: [machineClient('robot-1'), machineClient('robot-2')],
  });
  upstream = await startModernServer();
  h = await startWorkspace(
    {
      name: 'machines',
      governance: {
        toolLimits: [
          { name: 'each-caller', tools: ['up__echo'], per: 'subject', callsPerMinute: 2 },
          { name: 'each-key', tools: ['up__fail'], per: 'key', callsPerMinute: 2 },
        ],
      },
      mcpSources: [{ name: 'up', transport: 'streamable-http', url: upstream.url }],
      keys: [keyRecord(apiKey, { access: 'write' })],
      identity: {
        issuers: [{ issuer: as.issuer }],
        rules: [
          {
            name: 'robots',
            issuer: as.issuer,
            when: [{ claim: 'scope', contains: 'mcp:read' }],
            access: 'write',
          },
        ],
      },
    },
    { server: { host: '127.0.0.1', port, publicUrl: gatewayUrl }, oauth: { defaultWorkspace: 'machines' } },
  );
  first = await clientCredentialsToken(as.issuer, { clientId: 'robot-1', resource });
  second = await clientCredentialsToken(as.issuer, { clientId: 'robot-2', resource });
}, 60_000);

afterAll(async () => {
  await h?.stop();
  await upstream?.close();
  await as?.stop();
});

async function statuses(credential: string, tool: string, times: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < times; i += 1) {
    const response = await mcpPost(h.url, credential, {
      method: 'tools/call',
      params: { name: tool, arguments: tool === 'up__echo' ? { text: 'x' } : {} },
    });
    await response.arrayBuffer();
    out.push(response.status);
  }
  return out;
}

describe('tool limits for OAuth callers', () => {
  it('governance:tool-limit-oauth-subject — per subject: each signed-in subject and the API key have their own counter', async () => {
    expect(await statuses(first, 'up__echo', 3)).toEqual([200, 200, 429]);
    expect(await statuses(second, 'up__echo', 3)).toEqual([200, 200, 429]);
    expect(await statuses(apiKey.key, 'up__echo', 3)).toEqual([200, 200, 429]);
  });

  it('governance:tool-limit-oauth-rule — per key: the subjects one identity rule admits share a counter; an API key has its own', async () => {
    expect(await statuses(first, 'up__fail', 1)).toEqual([200]);
    expect(await statuses(second, 'up__fail', 2)).toEqual([200, 429]);
    expect(await statuses(first, 'up__fail', 1)).toEqual([429]);
    const refusal = await mcpPost(h.url, second, {
      method: 'tools/call',
      params: { name: 'up__fail', arguments: {} },
    });
    const body = (await refusal.json()) as { error: { message: string; data: Record<string, unknown> } };
    expect(body.error.message).toContain('for this sign-in rule');
    expect(body.error.data).toMatchObject({
      limit: { toolLimit: 'each-key', per: 'key', callsPerMinute: 2 },
    });
    expect(await statuses(apiKey.key, 'up__fail', 3)).toEqual([200, 200, 429]);
  });
});
