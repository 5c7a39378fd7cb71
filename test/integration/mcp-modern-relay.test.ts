// Relay to a 2026-07-28 upstream (duties 12, 13, 19, 20): MRTR `input_required` results reach the
// client and the retry reaches the upstream with byte-exact requestState; the client's declared
// capabilities are what the upstream sees; progress arrives on the request's own SSE stream; a
// client that goes away cancels the upstream call.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { startModernServer, type RunningModernServer } from '../fixtures/upstreams/modern-server.js';
import { httpSource, keyRecord, newKey } from '../support/gateway-document.js';
import { mcpPost, MODERN_META, startWorkspace, fileHarness } from '../support/gateway-harness.js';

const key = newKey();
let upstream: RunningModernServer;

const h = fileHarness(
  async () => {
    upstream = await startModernServer();
    return startWorkspace({
      mcpSources: [httpSource('modern', upstream.url)],
      keys: [keyRecord(key, { access: 'write' })],
    });
  },
  () => upstream.close(),
);

function body(response: unknown) {
  return response as {
    result?: Record<string, unknown>;
    error?: { code: number; message: string; data?: unknown };
  };
}

describe('MRTR through the gateway', () => {
  it('mcp:mrtr-passthrough — input_required reaches the client and the retry completes upstream', async () => {
    const capabilities = { elicitation: { form: {} } };
    const meta = { ...MODERN_META, 'io.modelcontextprotocol/clientCapabilities': capabilities };
    const first = body(
      await (
        await mcpPost(h.url, key.key, {
          method: 'tools/call',
          params: { _meta: meta, name: 'modern__confirm_action', arguments: { action: 'deploy' } },
        })
      ).json(),
    );
    expect(first.result?.['resultType']).toBe('input_required');
    const requestState = first.result?.['requestState'];
    expect(typeof requestState).toBe('string');
    expect(first.result?.['inputRequests']).toMatchObject({ confirm: { method: 'elicitation/create' } });

    const retry = body(
      await (
        await mcpPost(h.url, key.key, {
          id: 2,
          method: 'tools/call',
          params: {
            _meta: meta,
            name: 'modern__confirm_action',
            arguments: { action: 'deploy' },
            inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
            requestState,
          },
        })
      ).json(),
    );
    expect(retry.result?.['resultType']).toBe('complete');
    expect(JSON.stringify(retry.result?.['content'])).toContain('confirmed deploy');
    const upstreamRetry = upstream.log.filter((r) => r.rpcMethod === 'tools/call').at(-1);
    expect((upstreamRetry?.body as { params: { requestState: string; name: string } }).params).toMatchObject({
      requestState,
      name: 'confirm_action',
    });
  });

  it('mcp:mrtr-sdk-client — the v2 SDK client completes an elicitation round trip through the gateway', async () => {
    const client = new Client(
      { name: 'it-mrtr', version: '1.0.0' },
      { versionNegotiation: { mode: 'auto' }, capabilities: { elicitation: { form: {} } } },
    );
    const asked: unknown[] = [];
    client.setRequestHandler('elicitation/create', (request) => {
      asked.push(request.params);
      return Promise.resolve({ action: 'accept', content: { confirm: true } });
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${key.key}` } },
      }),
    );
    const result = await client.callTool({ name: 'modern__confirm_action', arguments: { action: 'ship' } });
    expect(JSON.stringify(result.content)).toContain('confirmed ship');
    expect(asked).toHaveLength(1);
    await client.close();
  });

  it('mcp:client-capabilities-forwarded — the upstream judges the client’s own declared capabilities', async () => {
    const response = await mcpPost(h.url, key.key, {
      method: 'tools/call',
      params: { name: 'modern__confirm_action', arguments: { action: 'x' } },
    });
    const parsed = body(await response.json());
    expect(response.status).toBe(400);
    expect(parsed.error?.code).toBe(-32021);
    const seen = upstream.log.filter((r) => r.rpcMethod === 'tools/call').at(-1)?.body as {
      params: { _meta: Record<string, unknown> };
    };
    expect(seen.params._meta['io.modelcontextprotocol/clientCapabilities']).toEqual({});
  });
});

describe('request-scoped streaming', () => {
  it('mcp:progress-sse — upstream progress reaches the client on the request’s SSE stream', async () => {
    const meta = { ...MODERN_META, progressToken: 'p-1' };
    const response = await mcpPost(h.url, key.key, {
      method: 'tools/call',
      params: { _meta: meta, name: 'modern__slow', arguments: { ms: 150, steps: 3 } },
    });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const events = (await response.text())
      .split('\n\n')
      .filter((block) => block.includes('data: '))
      .map((block) => JSON.parse(block.slice(block.indexOf('data: ') + 6)) as Record<string, unknown>);
    const progress = events.filter((e) => e['method'] === 'notifications/progress');
    expect(progress.map((e) => (e['params'] as { progress: number }).progress)).toEqual([1, 2, 3]);
    expect((progress[0]?.['params'] as { progressToken: string }).progressToken).toBe('p-1');
    const last = events.at(-1) as { id: number; result: { resultType: string } };
    expect(last.id).toBe(1);
    expect(last.result.resultType).toBe('complete');
  });

  it('mcp:cancel-on-disconnect — closing the request cancels the upstream call', async () => {
    const controller = new AbortController();
    const meta = { ...MODERN_META, progressToken: 'cancel-me' };
    const pending = fetch(`${h.url}/mcp`, {
      method: 'POST',
      signal: controller.signal,
      headers: {
        authorization: `Bearer ${key.key}`,
        'content-type': 'application/json',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'modern__slow',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 9,
        method: 'tools/call',
        params: { _meta: meta, name: 'modern__slow', arguments: { ms: 20_000, steps: 400 } },
      }),
    });
    const response = await pending;
    const reader = response.body!.getReader();
    await reader.read(); // the first progress event: the upstream call is running
    controller.abort();
    const deadline = Date.now() + 10_000;
    const run = () => upstream.slowRuns.find((r) => r.progressToken === 'cancel-me');
    while (run()?.outcome === 'running' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    expect(run()?.outcome).toBe('cancelled');
  });
});
