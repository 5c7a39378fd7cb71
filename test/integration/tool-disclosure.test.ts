// Progressive tool disclosure (issue 23) with real clients in front of real upstreams (the stdio demo
// server and a 2026-07-28 v2-SDK server): a key in `search` mode lists only the gateway's tools, finds
// tools by task and calls them through call_tool or by name, in both protocol eras; a read-only key
// neither finds nor calls a write tool; a key's tool patterns bound what it finds; the header mirror
// names the calling tool.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { startModernServer, type RunningModernServer } from '../fixtures/upstreams/modern-server.js';
import { demoSource, httpSource, keyRecord, newKeys } from '../support/gateway-document.js';
import { mcpPost, startWorkspace, fileHarness } from '../support/gateway-harness.js';

const [reader, writer, modernOnly, listsAll, metered] = newKeys(5);
let modern: RunningModernServer;

interface Found {
  tools: { name: string; source: string; description: string; input_schema: Record<string, unknown> }[];
  count: number;
}

function modernClient(key: string): Promise<Client> {
  const client = new Client(
    { name: 'it-disclosure', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  return client
    .connect(
      new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${key}` } },
      }),
    )
    .then(() => client);
}

async function find(client: Client | V1Client, query: string, limit?: number): Promise<Found> {
  const result = await client.callTool({
    name: 'find_tools',
    arguments: { query, ...(limit === undefined ? {} : { limit }) },
  });
  expect(result.isError ?? false).toBe(false);
  return result.structuredContent as Found;
}

const h = fileHarness(
  async () => {
    modern = await startModernServer({});
    return startWorkspace({
      toolDisclosure: 'search',
      mcpSources: [demoSource('demo'), httpSource('modern', modern.url)],
      keys: [
        keyRecord(reader),
        keyRecord(writer, { access: 'write' }),
        keyRecord(modernOnly, { access: 'write', tools: ['modern__*'] }),
        keyRecord(listsAll, { toolDisclosure: 'all' }),
        keyRecord(metered, { access: 'write', limits: { searchesPerDay: 2, toolCallsPerDay: 1 } }),
      ],
    });
  },
  () => modern.close(),
);

describe('toolDisclosure: search', () => {
  it('tools:disclosure-list — tools/list offers find_tools and call_tool only; a key set to all lists every tool', async () => {
    const client = await modernClient(writer.key);
    expect(client.getProtocolEra()).toBe('modern');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['call_tool', 'find_tools']);
    await client.close();
    const all = await modernClient(listsAll.key);
    const names = (await all.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['demo__add', 'modern__echo']));
    expect(names).not.toContain('find_tools');
    // find_tools is not this key's: it answers as an unknown tool.
    const refused = await all.callTool({ name: 'find_tools', arguments: { query: 'add numbers' } }).then(
      () => undefined,
      (error: unknown) => String(error),
    );
    expect(refused).toContain('Unknown tool: find_tools');
    await all.close();
  });

  it('tools:find-and-call — a 2026 client finds a tool by task and calls it through call_tool and by name', async () => {
    const client = await modernClient(writer.key);
    const found = await find(client, 'sum two numbers together', 3);
    expect(found.tools[0]?.name).toBe('demo__add');
    expect(found.tools[0]?.input_schema).toMatchObject({ type: 'object', properties: { a: {}, b: {} } });
    expect(found.count).toBe(found.tools.length);
    expect(found.tools.length).toBeLessThanOrEqual(3);
    const viaCallTool = await client.callTool({
      name: 'call_tool',
      arguments: { name: 'demo__add', arguments: { a: 2, b: 40 } },
    });
    expect(viaCallTool.content).toEqual([{ type: 'text', text: '42' }]);
    const direct = await client.callTool({ name: 'demo__add', arguments: { a: 1, b: 2 } });
    expect(direct.content).toEqual([{ type: 'text', text: '3' }]);
    // An upstream tool whose parameter is mirrored into a header: the gateway derives the inner
    // call's Mcp-Param-Region from its arguments (the client's headers mirror call_tool's).
    const regional = await client.callTool({
      name: 'call_tool',
      arguments: { name: 'modern__regional_lookup', arguments: { region: 'eu-west' } },
    });
    expect(JSON.stringify(regional.content)).toContain('region=eu-west');
    await client.close();
  });

  it('tools:find-legacy — a 2025-era client (v1 SDK) finds and calls the same way', async () => {
    const transport = new V1Transport(new URL(`${h.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${writer.key}` } },
    });
    const client = new V1Client({ name: 'it-v1-disclosure', version: '1.0.0' });
    await client.connect(transport);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['call_tool', 'find_tools']);
    const found = await find(client, 'save a note for later');
    expect(found.tools.map((t) => t.name)).toContain('demo__create_note');
    const result = await client.callTool({
      name: 'call_tool',
      arguments: { name: 'demo__echo', arguments: { text: 'via v1' } },
    });
    expect(result.content).toEqual([{ type: 'text', text: 'via v1' }]);
    await client.close();
  });

  it('tools:read-key-no-write — a read-only key neither finds nor calls a write tool', async () => {
    const client = await modernClient(reader.key);
    for (const query of ['save a note', 'create note', 'delete a note by id', 'create_note']) {
      const names = (await find(client, query, 20)).tools.map((t) => t.name);
      expect(names).not.toContain('demo__create_note');
      expect(names).not.toContain('demo__delete_note');
    }
    // The read tool next to them is found, so the search itself works for this key.
    expect((await find(client, 'list my notes')).tools.map((t) => t.name)).toContain('demo__list_notes');
    for (const call of [
      { name: 'call_tool', arguments: { name: 'demo__create_note', arguments: { text: 'x' } } },
      { name: 'demo__create_note', arguments: { text: 'x' } },
    ]) {
      const error = await client.callTool(call).then(
        () => 'no error',
        (e: unknown) => String(e),
      );
      expect(error).toContain('Permission denied: demo__create_note needs an API key with write access');
    }
    await client.close();
  });

  it('tools:find-pattern-bound — a key limited to modern__* never finds or calls a demo tool', async () => {
    const client = await modernClient(modernOnly.key);
    const names = (await find(client, 'echo back the text I give you', 20)).tools.map((t) => t.name);
    expect(names).toContain('modern__echo');
    expect(names.every((name) => name.startsWith('modern__'))).toBe(true);
    const error = await client
      .callTool({ name: 'call_tool', arguments: { name: 'demo__echo', arguments: { text: 'x' } } })
      .then(
        () => 'no error',
        (e: unknown) => String(e),
      );
    expect(error).toContain('Unknown tool: demo__echo');
    await client.close();
  });

  it('tools:call-tool-shape — call_tool refuses nesting and malformed arguments; Mcp-Name names the calling tool', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ name: 'call_tool', arguments: { name: 'demo__echo' } }, 'call call_tool directly'],
      [{ name: 'find_tools', arguments: { query: 'x' } }, 'call find_tools directly'],
      [{ name: '' }, 'name must be a non-empty string'],
      [{ name: 'demo__echo', arguments: [1] }, 'arguments must be an object'],
      [{ name: 'demo__echo', extra: 1 }, 'call_tool takes name and arguments only'],
    ];
    for (const [args, message] of cases) {
      const response = await mcpPost(h.url, writer.key, {
        method: 'tools/call',
        params: { name: 'call_tool', arguments: args },
      });
      const body = (await response.json()) as { error?: { code: number; message: string } };
      expect(body.error?.code).toBe(-32602);
      expect(body.error?.message).toContain(message);
    }
    // The 2026 header mirror: Mcp-Name must name call_tool, the tool in the body, not the inner one.
    const mismatched = await mcpPost(
      h.url,
      writer.key,
      {
        method: 'tools/call',
        params: { name: 'call_tool', arguments: { name: 'demo__echo', arguments: { text: 'x' } } },
      },
      { 'mcp-name': 'demo__echo' },
    );
    expect(mismatched.status).toBe(400);
    const ok = await mcpPost(h.url, writer.key, {
      method: 'tools/call',
      params: { name: 'call_tool', arguments: { name: 'demo__echo', arguments: { text: 'mirrored' } } },
    });
    expect(JSON.stringify(await ok.json())).toContain('mirrored');
    const badFind = await mcpPost(h.url, writer.key, {
      method: 'tools/call',
      params: { name: 'find_tools', arguments: { query: 'x', limit: 21 } },
    });
    expect(((await badFind.json()) as { error: { message: string } }).error.message).toContain(
      'limit must be an integer from 1 to 20',
    );
  });

  it('tools:agent-tools-query — GET /agent/tools?query= ranks the key\u2019s tools; bad parameters are 400s naming them', async () => {
    const get = (key: string, query: string) =>
      fetch(`${h.url}/agent/tools?${query}`, {
        headers: { authorization: `Bearer ${key}`, accept: 'application/json' },
      });
    const ranked = (await (await get(writer.key, 'query=add+two+numbers&limit=2')).json()) as Found;
    expect(ranked.tools[0]?.name).toBe('demo__add');
    expect(ranked.tools.length).toBeLessThanOrEqual(2);
    const scoped = (await (await get(modernOnly.key, 'query=echo+text&limit=50')).json()) as Found;
    expect(scoped.tools.every((t) => t.name.startsWith('modern__'))).toBe(true);
    for (const [query, field] of [
      ['query=', 'query'],
      ['query=x&limit=0', 'limit'],
      ['query=x&limit=101', 'limit'],
      ['query=x&mode=fuzzy', 'mode'],
      ['limit=3', 'limit'],
      ['query=a&query=b', 'query'],
    ] as const) {
      const response = await get(writer.key, query);
      expect(response.status).toBe(400);
      const body = (await response.json()) as { error: { details: { path: string }[] } };
      expect(body.error.details.map((d) => d.path)).toContain(field);
    }
  });

  it('tools:disclosure-limits — find_tools counts against the search quota, call_tool against the tool-call quota', async () => {
    const call = (name: string, args: Record<string, unknown>) =>
      mcpPost(h.url, metered.key, { method: 'tools/call', params: { name, arguments: args } });
    const finds = [];
    for (let i = 0; i < 3; i++) finds.push((await call('find_tools', { query: 'add numbers' })).status);
    expect(finds).toEqual([200, 200, 429]);
    const calls = [];
    for (let i = 0; i < 2; i++)
      calls.push((await call('call_tool', { name: 'demo__add', arguments: { a: 1, b: 1 } })).status);
    expect(calls).toEqual([200, 429]);
    // A directly named call draws on the same tool-call quota.
    expect((await call('demo__add', { a: 1, b: 1 })).status).toBe(429);
  });
});
