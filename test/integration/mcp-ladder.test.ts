// The inbound ladder of POST /mcp over raw HTTP, one test per rung (docs/mcp-2026.md §2.2, §2.6;
// gateway duties 1–5). Every rejection is a JSON-RPC error body with the spec's status and code.
import { describe, expect, it } from 'vitest';
import { demoSource, keyRecord, newKey } from '../support/gateway-document.js';
import { mcpPost, MODERN_META, startWorkspace, fileHarness } from '../support/gateway-harness.js';

const key = newKey();

const h = fileHarness(() =>
  startWorkspace(
    { mcpSources: [demoSource()], keys: [keyRecord(key, { access: 'write' })] },
    {
      server: { host: '127.0.0.1', port: 0, bodyLimitBytes: 4096 },
    },
  ),
);

interface RpcError {
  jsonrpc: string;
  id: unknown;
  error: { code: number; message: string; data?: Record<string, unknown> };
}

async function rejected(response: Response, status: number, code: number): Promise<RpcError> {
  expect(response.status).toBe(status);
  const body = (await response.json()) as RpcError;
  expect(body.jsonrpc).toBe('2.0');
  expect(body.error.code).toBe(code);
  return body;
}

function raw(body: string, headers: Record<string, string> = {}, method = 'POST') {
  return fetch(`${h.url}/mcp`, {
    method,
    headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json', ...headers },
    ...(method === 'GET' || method === 'DELETE' ? {} : { body }),
  });
}

describe('transport rungs', () => {
  it('ladder:405 — GET and DELETE are not allowed', async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await raw('', {}, method);
      await rejected(response, 405, -32000);
      expect(response.headers.get('allow')).toBe('POST');
    }
  });
  it('ladder:415 — a body that is not application/json', async () => {
    await rejected(await raw('{}', { 'content-type': 'text/plain' }), 415, -32000);
  });
  it('ladder:413 — a body above the configured limit', async () => {
    const response = await raw(
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { pad: 'x'.repeat(8000) } }),
    );
    const body = await rejected(response, 413, -32000);
    expect(body.error.data?.['code']).toBe('payload_too_large');
  });
  it('ladder:parse-error — invalid JSON is -32700', async () => {
    await rejected(await raw('{"jsonrpc":'), 400, -32700);
  });
  it('ladder:batch — JSON-RPC batches are rejected', async () => {
    await rejected(
      await raw(
        JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: MODERN_META } }]),
      ),
      400,
      -32600,
    );
  });
  it('ladder:invalid-request — a response object or a missing method is -32600', async () => {
    await rejected(await raw('{"jsonrpc":"2.0","id":1,"result":{}}'), 400, -32600);
    await rejected(await raw('{"jsonrpc":"2.0","id":1}'), 400, -32600);
  });
});

describe('modern header/body rungs', () => {
  it('ladder:version-header-missing — MCP-Protocol-Version is required on modern requests', async () => {
    await rejected(
      await mcpPost(h.url, key.key, { method: 'tools/list' }, { 'mcp-protocol-version': undefined }),
      400,
      -32020,
    );
  });
  it('ladder:version-mismatch — header and _meta versions must agree', async () => {
    await rejected(
      await mcpPost(h.url, key.key, { method: 'tools/list' }, { 'mcp-protocol-version': '2025-11-25' }),
      400,
      -32020,
    );
  });
  it('ladder:unsupported-version — an unknown modern version is -32022 with the supported list', async () => {
    const meta = { ...MODERN_META, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' };
    const body = await rejected(
      await mcpPost(
        h.url,
        key.key,
        { method: 'tools/list', params: { _meta: meta } },
        { 'mcp-protocol-version': '2099-01-01' },
      ),
      400,
      -32022,
    );
    expect(body.error.data).toMatchObject({ requested: '2099-01-01' });
    expect(body.error.data?.['supported']).toContain('2026-07-28');
  });
  it('ladder:method-mismatch — Mcp-Method must equal the body method', async () => {
    await rejected(
      await mcpPost(h.url, key.key, { method: 'tools/list' }, { 'mcp-method': 'tools/call' }),
      400,
      -32020,
    );
    await rejected(
      await mcpPost(h.url, key.key, { method: 'tools/list' }, { 'mcp-method': undefined }),
      400,
      -32020,
    );
  });
  it('ladder:name-mismatch — Mcp-Name must equal params.name; the Base64 sentinel is decoded', async () => {
    const params = { name: 'demo__echo', arguments: { text: 'x' } };
    await rejected(
      await mcpPost(h.url, key.key, { method: 'tools/call', params }, { 'mcp-name': undefined }),
      400,
      -32020,
    );
    await rejected(
      await mcpPost(h.url, key.key, { method: 'tools/call', params }, { 'mcp-name': 'demo__add' }),
      400,
      -32020,
    );
    const encoded = `=?base64?${Buffer.from('demo__echo').toString('base64')}?=`;
    const ok = await mcpPost(h.url, key.key, { method: 'tools/call', params }, { 'mcp-name': encoded });
    expect(ok.status).toBe(200);
  });
  it('ladder:meta-missing — _meta and its clientCapabilities are required (-32602)', async () => {
    const noMeta = await fetch(`${h.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key.key}`,
        'content-type': 'application/json',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/list',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    await rejected(noMeta, 400, -32602);
    const { 'io.modelcontextprotocol/clientCapabilities': _caps, ...withoutCaps } = MODERN_META;
    await rejected(
      await mcpPost(h.url, key.key, { method: 'tools/list', params: { _meta: withoutCaps } }),
      400,
      -32602,
    );
  });
  it('ladder:initialize-modern — initialize with a modern version header is rejected', async () => {
    await rejected(await mcpPost(h.url, key.key, { method: 'initialize' }), 400, -32020);
  });
  it('ladder:method-not-found — unknown modern methods are 404 -32601', async () => {
    await rejected(await mcpPost(h.url, key.key, { method: 'ping' }), 404, -32601);
    await rejected(await mcpPost(h.url, key.key, { method: 'no/such' }), 404, -32601);
  });
  it('ladder:notification — a modern notification is accepted with 202 and no body', async () => {
    const response = await raw(
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }),
    );
    expect(response.status).toBe(202);
    expect(await response.text()).toBe('');
  });
});

describe('results', () => {
  it('mcp:result-envelope — results carry resultType and serverInfo; lists carry ttlMs and cacheScope', async () => {
    const body = (await (await mcpPost(h.url, key.key, { method: 'tools/list' })).json()) as {
      id: number;
      result: Record<string, unknown>;
    };
    expect(body.id).toBe(1);
    expect(body.result).toMatchObject({
      resultType: 'complete',
      cacheScope: 'private',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'agent-gateway' } },
    });
    expect(typeof body.result['ttlMs']).toBe('number');
    const discover = (await (await mcpPost(h.url, key.key, { method: 'server/discover' })).json()) as {
      result: Record<string, unknown>;
    };
    expect(discover.result).toMatchObject({
      resultType: 'complete',
      supportedVersions: expect.arrayContaining(['2026-07-28']),
      cacheScope: 'private',
    });
  });
  it('mcp:legacy-unsupported-version — a legacy request with an unknown version header is rejected', async () => {
    const response = await raw(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), {
      'mcp-protocol-version': '2024-01-01',
    });
    await rejected(response, 400, -32022);
  });
});
