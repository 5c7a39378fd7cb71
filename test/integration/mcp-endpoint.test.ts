// The hosted MCP endpoint with real clients (v2 SDK in both eras, v1 SDK) in front of real upstreams
// (the stdio demo server and a 2026-07-28 v2-SDK server). Proofs use the upstream's request log.
import { Client } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { startModernServer, type RunningModernServer } from '../fixtures/upstreams/modern-server.js';
import { demoSource, httpSource, keyRecord, newKeys } from '../support/gateway-document.js';
import { mcpPost, startHarness, fileHarness } from '../support/gateway-harness.js';

const [reader, writer, demoOnly] = newKeys(3);
let modern: RunningModernServer;
const responseHeaders: Headers[] = [];

const recordingFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  responseHeaders.push(response.headers);
  return response;
};

function transportFor(key: string) {
  return new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
    fetch: recordingFetch,
  });
}

const h = fileHarness(
  async () => {
    modern = await startModernServer({ bearerToken: 'upstream-secret-token' });
    return startHarness(
      {
        workspaces: [
          {
            name: 'demo',
            mcpSources: [
              demoSource('demo'),
              httpSource('modern', modern.url, {
                credential: { type: 'bearer', secret: { env: 'MODERN_TOKEN' } },
              }),
            ],
            keys: [
              keyRecord(reader),
              keyRecord(writer, { access: 'write' }),
              keyRecord(demoOnly, { tools: ['demo__*'] }),
            ],
          },
        ],
      },
      { MODERN_TOKEN: 'upstream-secret-token' },
    );
  },
  () => modern.close(),
);

describe('real clients through the gateway', () => {
  it('mcp:modern-client — the v2 SDK client negotiates 2026-07-28 and calls tools on both upstreams', async () => {
    const client = new Client(
      { name: 'it-modern', version: '1.0.0' },
      { versionNegotiation: { mode: 'auto' } },
    );
    await client.connect(transportFor(writer.key));
    expect(client.getProtocolEra()).toBe('modern');
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual([...names].sort());
    expect(names).toEqual(
      expect.arrayContaining([
        'demo__echo',
        'demo__create_note',
        'modern__echo',
        'modern__regional_lookup',
        'modern__write_thing',
      ]),
    );
    const viaStdio = await client.callTool({ name: 'demo__echo', arguments: { text: 'through stdio' } });
    expect(viaStdio.content).toEqual([{ type: 'text', text: 'through stdio' }]);
    const viaHttp = await client.callTool({ name: 'modern__echo', arguments: { text: 'through http' } });
    expect(JSON.stringify(viaHttp.content)).toContain('through http');
    await client.close();
  });

  it('mcp:legacy-client-v2 — the v2 SDK client in its default 2025 mode works statelessly', async () => {
    const client = new Client({ name: 'it-legacy', version: '1.0.0' });
    await client.connect(transportFor(reader.key));
    expect(client.getProtocolEra()).toBe('legacy');
    const { tools } = await client.listTools();
    expect(tools.some((t) => t.name === 'demo__add')).toBe(true);
    const result = await client.callTool({ name: 'demo__add', arguments: { a: 2, b: 40 } });
    expect(result.content).toEqual([{ type: 'text', text: '42' }]);
    await client.close();
  });

  it('mcp:legacy-client-v1 — the v1 SDK client (2025-11-25) works and gets no session id', async () => {
    const transport = new V1Transport(new URL(`${h.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${reader.key}` } },
    });
    const client = new V1Client({ name: 'it-v1', version: '1.0.0' });
    await client.connect(transport);
    expect(transport.sessionId).toBeUndefined();
    const result = await client.callTool({ name: 'modern__echo', arguments: { text: 'v1' } });
    expect(JSON.stringify(result.content)).toContain('v1');
    await client.close();
  });

  it('mcp:no-session-id — no response carries Mcp-Session-Id', () => {
    expect(responseHeaders.length).toBeGreaterThan(5);
    expect(responseHeaders.filter((headers) => headers.has('mcp-session-id'))).toEqual([]);
  });
});

describe('per-key permissions before any upstream contact', () => {
  it('mcp:tools-list-filtered — a read key lists only read tools, in a stable order', async () => {
    const first = (await (await mcpPost(h.url, reader.key, { method: 'tools/list' })).json()) as {
      result: { tools: { name: string }[]; cacheScope: string; ttlMs: number };
    };
    const second = (await (
      await mcpPost(h.url, reader.key, { method: 'tools/list' })
    ).json()) as typeof first;
    const names = first.result.tools.map((t) => t.name);
    expect(names).toEqual(second.result.tools.map((t) => t.name));
    expect(names).toContain('modern__echo');
    expect(names).not.toContain('modern__write_thing');
    expect(names).not.toContain('demo__create_note');
    expect(first.result.cacheScope).toBe('private');
    expect(Number.isInteger(first.result.ttlMs)).toBe(true);
  });

  it('mcp:write-denied-without-oauth — a read key calling a write tool gets an in-band JSON-RPC error naming the access, no OAuth challenge, and the upstream never sees it', async () => {
    const before = modern.log.filter((r) => r.rpcMethod === 'tools/call').length;
    const response = await mcpPost(h.url, reader.key, {
      id: 'w-1',
      method: 'tools/call',
      params: { name: 'modern__write_thing', arguments: {} },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('www-authenticate')).toBeNull();
    const body = (await response.json()) as {
      id: unknown;
      error: { code: number; message: string; data: unknown };
    };
    expect(body.id).toBe('w-1');
    expect(body.error.code).toBe(-31003);
    expect(body.error.message).toMatch(/modern__write_thing needs an API key with write access/);
    expect(body.error.data).toMatchObject({ code: 'forbidden', requiredPermission: 'write' });
    // The 2025 face answers the same way.
    const legacy = await fetch(`${h.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${reader.key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'modern__write_thing', arguments: {} },
      }),
    });
    expect(legacy.status).toBe(200);
    expect(legacy.headers.get('www-authenticate')).toBeNull();
    expect(((await legacy.json()) as { error: { code: number } }).error.code).toBe(-31003);
    expect(modern.log.filter((r) => r.rpcMethod === 'tools/call').length).toBe(before);
  });

  it('mcp:no-oracle — an invisible tool answers exactly like an unknown one, without upstream contact', async () => {
    const before = modern.log.length;
    const hidden = (await (
      await mcpPost(h.url, demoOnly.key, {
        method: 'tools/call',
        params: { name: 'modern__echo', arguments: { text: 'x' } },
      })
    ).json()) as {
      error: { code: number; message: string };
    };
    const missing = (await (
      await mcpPost(h.url, demoOnly.key, {
        method: 'tools/call',
        params: { name: 'modern__nope', arguments: { text: 'x' } },
      })
    ).json()) as typeof hidden;
    expect(hidden.error.code).toBe(missing.error.code);
    expect(hidden.error.message.replace('modern__echo', 'X')).toBe(
      missing.error.message.replace('modern__nope', 'X'),
    );
    expect(modern.log.filter((r) => r.rpcMethod === 'tools/call').length).toBe(
      modern.log.slice(0, before).filter((r) => r.rpcMethod === 'tools/call').length,
    );
  });

  it('mcp:header-mismatch-not-executed — a mismatched Mcp-Name is rejected and the tool never runs', async () => {
    const before = modern.log.filter((r) => r.rpcMethod === 'tools/call').length;
    const response = await mcpPost(
      h.url,
      writer.key,
      { method: 'tools/call', params: { name: 'modern__write_thing', arguments: {} } },
      { 'mcp-name': 'modern__echo' },
    );
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: number } }).error.code).toBe(-32020);
    expect(modern.log.filter((r) => r.rpcMethod === 'tools/call').length).toBe(before);
  });

  it('mcp:param-header — x-mcp-header arguments need a mirroring Mcp-Param header', async () => {
    const ok = await mcpPost(
      h.url,
      reader.key,
      { method: 'tools/call', params: { name: 'modern__regional_lookup', arguments: { region: 'eu-west' } } },
      { 'mcp-param-region': 'eu-west' },
    );
    expect(ok.status).toBe(200);
    expect(JSON.stringify(await ok.json())).toContain('eu-west');
    const before = modern.log.filter((r) => r.rpcMethod === 'tools/call').length;
    const missing = await mcpPost(h.url, reader.key, {
      method: 'tools/call',
      params: { name: 'modern__regional_lookup', arguments: { region: 'eu-west' } },
    });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { error: { code: number } }).error.code).toBe(-32020);
    const wrong = await mcpPost(
      h.url,
      reader.key,
      { method: 'tools/call', params: { name: 'modern__regional_lookup', arguments: { region: 'eu-west' } } },
      { 'mcp-param-region': 'us-east' },
    );
    expect(wrong.status).toBe(400);
    expect(modern.log.filter((r) => r.rpcMethod === 'tools/call').length).toBe(before);
  });

  it('mcp:credentials-not-forwarded — upstreams see the source credential, never the client key', () => {
    const authorizations = new Set(modern.log.map((r) => r.authorization));
    expect(authorizations).toEqual(new Set(['Bearer upstream-secret-token']));
    const all = JSON.stringify(modern.log);
    for (const key of [reader, writer, demoOnly]) expect(all.includes(key.key)).toBe(false);
  });
});
