// Server-initiated elicitation and sampling of a legacy upstream (v1 SDK) bridged into 2026 MRTR
// `input_required` results (spec §4.2 rule 5, duty 16). The gateway's requestState is sealed and
// bound to the key, the tool and the arguments, and it is single-use.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import {
  startLegacySessionfulServer,
  type RunningLegacySessionfulServer,
} from '../fixtures/upstreams/legacy-sessionful-server.js';
import { httpSource, keyRecord, newKeys } from '../support/gateway-document.js';
import { mcpPost, MODERN_META, startWorkspace, fileHarness } from '../support/gateway-harness.js';

const [key, other] = newKeys(2);
let legacy: RunningLegacySessionfulServer;
const elicitMeta = {
  ...MODERN_META,
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
};

const h = fileHarness(
  async () => {
    legacy = await startLegacySessionfulServer();
    return startWorkspace({
      mcpSources: [httpSource('legacy', legacy.url)],
      keys: [keyRecord(key, { access: 'write' }), keyRecord(other, { access: 'write' })],
    });
  },
  () => legacy.close(),
);

type Rpc = { result?: Record<string, unknown>; error?: { code: number; message: string } };

async function call(apiKey: string, params: Record<string, unknown>, id = 1): Promise<Rpc> {
  return (await (
    await mcpPost(h.url, apiKey, { id, method: 'tools/call', params: { _meta: elicitMeta, ...params } })
  ).json()) as Rpc;
}

describe('legacy elicitation bridged into input_required', () => {
  it('mcp:legacy-elicitation-bridge — the client answers an upstream elicitation through an MRTR retry', async () => {
    const first = await call(key.key, { name: 'legacy__ask_name', arguments: {} });
    expect(first.result?.['resultType']).toBe('input_required');
    const inputRequests = first.result?.['inputRequests'] as Record<
      string,
      { method: string; params: { message: string } }
    >;
    const [inputKey, input] = Object.entries(inputRequests)[0]!;
    expect(input.method).toBe('elicitation/create');
    expect(input.params.message).toBe('What is your name?');
    const requestState = first.result?.['requestState'] as string;

    const second = await call(
      key.key,
      {
        name: 'legacy__ask_name',
        arguments: {},
        inputResponses: { [inputKey]: { action: 'accept', content: { name: 'Ada' } } },
        requestState,
      },
      2,
    );
    expect(second.result?.['resultType']).toBe('complete');
    expect(JSON.stringify(second.result?.['content'])).toContain('hello Ada');

    const replay = await call(
      key.key,
      {
        name: 'legacy__ask_name',
        arguments: {},
        inputResponses: { [inputKey]: { action: 'accept', content: { name: 'Eve' } } },
        requestState,
      },
      3,
    );
    expect(replay.error?.code).toBe(-32602);
  });

  it('mcp:bridge-state-bound — the state cannot be used by another key, for other arguments, or forged', async () => {
    const first = await call(key.key, { name: 'legacy__ask_name', arguments: {} });
    const requestState = first.result?.['requestState'] as string;
    const inputKey = Object.keys(first.result?.['inputRequests'] as object)[0]!;
    const answer = { [inputKey]: { action: 'accept', content: { name: 'Mallory' } } };
    const stolen = await call(other.key, {
      name: 'legacy__ask_name',
      arguments: {},
      inputResponses: answer,
      requestState,
    });
    expect(stolen.error?.code).toBe(-32602);
    const otherArgs = await call(key.key, {
      name: 'legacy__ask_name',
      arguments: { extra: 1 },
      inputResponses: answer,
      requestState,
    });
    expect(otherArgs.error?.code).toBe(-32602);
    const [prefix, body, mac] = requestState.split('.');
    const payload = JSON.parse(Buffer.from(body!, 'base64url').toString()) as Record<string, unknown>;
    const forgedBody = Buffer.from(JSON.stringify({ ...payload, keyId: other.id })).toString('base64url');
    const forged = await call(other.key, {
      name: 'legacy__ask_name',
      arguments: {},
      inputResponses: answer,
      requestState: `${prefix}.${forgedBody}.${mac}`,
    });
    expect(forged.error?.code).toBe(-32602);
    const legit = await call(key.key, {
      name: 'legacy__ask_name',
      arguments: {},
      inputResponses: answer,
      requestState,
    });
    expect(JSON.stringify(legit.result?.['content'])).toContain('hello Mallory');
  });

  it('mcp:legacy-sampling-bridge — an upstream sampling request reaches the client as an input request', async () => {
    const meta = { ...MODERN_META, 'io.modelcontextprotocol/clientCapabilities': { sampling: {} } };
    const first = (await (
      await mcpPost(h.url, key.key, {
        method: 'tools/call',
        params: { _meta: meta, name: 'legacy__sample', arguments: { prompt: 'Capital of France?' } },
      })
    ).json()) as Rpc;
    const [inputKey, input] = Object.entries(
      first.result?.['inputRequests'] as Record<string, { method: string }>,
    )[0]!;
    expect(input.method).toBe('sampling/createMessage');
    const modelAnswer = {
      role: 'assistant',
      content: { type: 'text', text: 'Paris' },
      model: 'test-model',
      stopReason: 'endTurn',
    };
    const second = (await (
      await mcpPost(h.url, key.key, {
        id: 2,
        method: 'tools/call',
        params: {
          _meta: meta,
          name: 'legacy__sample',
          arguments: { prompt: 'Capital of France?' },
          inputResponses: { [inputKey]: modelAnswer },
          requestState: first.result?.['requestState'],
        },
      })
    ).json()) as Rpc;
    expect(JSON.stringify(second.result?.['content'])).toContain('Paris');
  });

  it('mcp:legacy-bridge-sdk-client — the v2 SDK client completes a legacy elicitation through the gateway', async () => {
    const client = new Client(
      { name: 'it-bridge', version: '1.0.0' },
      { versionNegotiation: { mode: 'auto' }, capabilities: { elicitation: { form: {} } } },
    );
    client.setRequestHandler('elicitation/create', () =>
      Promise.resolve({ action: 'accept', content: { name: 'Grace' } }),
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${key.key}` } },
      }),
    );
    const result = await client.callTool({ name: 'legacy__ask_name', arguments: {} });
    expect(JSON.stringify(result.content)).toContain('hello Grace');
    await client.close();
  });
});
