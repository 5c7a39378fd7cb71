// The per-source naming policy (issue 24): `prefix: never` exposes an upstream's own tool, prompt
// and resource names and URIs, `auto` only those nobody else claims, `always` the namespaced form.
// Names are assigned over what each key can see; a name claimed twice goes to nobody (never shadowed)
// and is reported in /agent/sources; `<source>__<name>` and `agw://<source>/…` keep working as
// aliases; permission patterns keep matching the canonical names. Real upstreams (the conformance
// fixture twice, the demo server), real clients (SDK v2 in both eras, the Python SDK).
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conformanceStdioParams } from '../fixtures/upstreams/conformance-server.js';
import { startHostileNamesServer } from '../fixtures/upstreams/hostile-names-server.js';
import type { RunningUpstream } from '../fixtures/upstreams/http-bridge.js';
import { demoSource, keyRecord, newKeys } from '../support/gateway-document.js';
import { get, startWorkspace, type Harness } from '../support/gateway-harness.js';
import { connectClient, rpcCall, type RpcAnswer } from '../support/mcp-clients.js';
import { runPythonClient } from '../support/python-client.js';

const [all, confOnly, readConf, narrow, odd, finder] = newKeys(6);
let h: Harness;
let names: RunningUpstream;

beforeAll(async () => {
  const fixture = conformanceStdioParams();
  // The gateway's own tool names and Object.prototype's, offered by an upstream as its own.
  names = await startHostileNamesServer([
    'search',
    'find_tools',
    'call_tool',
    'constructor',
    'toString',
    'fine_tool',
  ]);
  h = await startWorkspace({
    name: 'naming',
    mcpSources: [
      { name: 'conf', transport: 'stdio', ...fixture, prefix: 'never' },
      { name: 'twin', transport: 'stdio', ...fixture, prefix: 'auto' },
      demoSource('demo'),
      { name: 'odd', transport: 'streamable-http', url: names.url, prefix: 'never' },
      { name: 'oddauto', transport: 'streamable-http', url: names.url, prefix: 'auto' },
    ],
    keys: [
      keyRecord(all, { access: 'write' }),
      keyRecord(confOnly, { access: 'write', sources: ['conf'] }),
      keyRecord(readConf, { access: 'read', sources: ['conf'] }),
      keyRecord(narrow, { access: 'write', sources: ['conf', 'twin'], tools: ['conf__test_simple_*'] }),
      keyRecord(odd, { access: 'write', sources: ['odd'] }),
      keyRecord(finder, { access: 'write', sources: ['conf'], toolDisclosure: 'search' }),
    ],
  });
}, 60_000);
afterAll(async () => {
  await h.stop();
  await names.close();
});

function connect(key: string, mode: 'auto' | 'legacy'): Promise<Client> {
  return connectClient(h.url, key, mode, 'it-naming');
}

function rpc(key: string, method: string, params: Record<string, unknown>): Promise<RpcAnswer> {
  return rpcCall(h.url, key, method, params);
}

const textOf = (result: unknown) =>
  ((result as { content?: { type: string; text?: string }[] }).content ?? [])
    .filter((item) => item.type === 'text')
    .map((item) => item.text)
    .join('');

describe('prefix never, a key that sees only that source', () => {
  for (const mode of ['auto', 'legacy'] as const) {
    it(`mcp:naming-never-${mode} — tools, prompts, resources and templates under the upstream's own names, callable by them and by the prefixed alias (${mode})`, async () => {
      const client = await connect(confOnly.key, mode);
      try {
        const tools = (await client.listTools()).tools.map((tool) => tool.name);
        expect(tools).toContain('test_simple_text');
        expect(tools).toContain('test_image_content');
        expect(tools.some((name) => name.includes('__'))).toBe(false);
        expect(textOf(await client.callTool({ name: 'test_simple_text', arguments: {} }))).toContain(
          'This is a simple text response for testing.',
        );
        expect(textOf(await client.callTool({ name: 'conf__test_simple_text', arguments: {} }))).toContain(
          'This is a simple text response for testing.',
        );

        const prompts = (await client.listPrompts()).prompts.map((prompt) => prompt.name);
        expect(prompts).toContain('test_simple_prompt');
        const prompt = await client.getPrompt({
          name: 'test_prompt_with_arguments',
          arguments: { arg1: 'x', arg2: 'y' },
        });
        expect(JSON.stringify(prompt.messages)).toContain('x');

        const resources = (await client.listResources()).resources;
        expect(resources.map((r) => r.uri)).toContain('test://static-text');
        expect(resources.find((r) => r.uri === 'test://static-text')?.name).toBe('static-text');
        const read = await client.readResource({ uri: 'test://static-text' });
        expect(read.contents[0]?.uri).toBe('test://static-text');

        const templates = (await client.listResourceTemplates()).resourceTemplates;
        expect(templates.map((t) => t.uriTemplate)).toContain('test://template/{id}/data');
        const expanded = await client.readResource({ uri: 'test://template/123/data' });
        expect(expanded.contents[0]?.uri).toBe('test://template/123/data');
        expect(JSON.stringify(expanded.contents)).toContain('123');

        const completion = await client.complete({
          ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
          argument: { name: 'arg1', value: '' },
        });
        expect(Array.isArray(completion.completion.values)).toBe(true);
      } finally {
        await client.close();
      }
    });
  }

  it('mcp:naming-unknown — a bare name no visible source has answers Unknown tool / Resource not found, and a read key still needs write for a write tool', async () => {
    const missing = await rpc(confOnly.key, 'tools/call', { name: 'no_such_tool', arguments: {} });
    expect(missing.error?.message).toBe('Unknown tool: no_such_tool');
    const denied = await rpc(readConf.key, 'tools/call', { name: 'test_simple_text', arguments: {} });
    expect(denied.error?.message).toMatch(
      /^Permission denied: test_simple_text needs an API key with write access/,
    );
    // The sole unprefixed source decides URIs it does not list; its own answer says not found.
    const unlisted = await rpc(confOnly.key, 'resources/read', { uri: 'test://nothing-here' });
    expect(unlisted.error).toBeDefined();
    const foreign = await rpc(confOnly.key, 'resources/read', { uri: 'agw://demo/anything' });
    expect(foreign.error?.message).toBe('Resource not found: agw://demo/anything');
  });
});

describe('collisions', () => {
  it("mcp:naming-collision — a name both unprefixed sources claim goes to neither: never's item is left out and reported, auto's is prefixed", async () => {
    const client = await connect(all.key, 'auto');
    try {
      const tools = (await client.listTools()).tools.map((tool) => tool.name);
      expect(tools).not.toContain('test_simple_text');
      expect(tools).not.toContain('conf__test_simple_text');
      expect(tools).toContain('twin__test_simple_text');
      expect(tools.filter((name) => name.startsWith('demo__')).length).toBeGreaterThan(0);
      const resources = (await client.listResources()).resources.map((r) => r.uri);
      expect(resources).not.toContain('test://static-text');
      expect(resources).toContain(`agw://twin/${encodeURIComponent('test://static-text')}`);
    } finally {
      await client.close();
    }
    const bare = await rpc(all.key, 'tools/call', { name: 'test_simple_text', arguments: {} });
    expect(bare.error?.message).toBe('Unknown tool: test_simple_text');
    const ambiguous = await rpc(all.key, 'resources/read', { uri: 'test://static-text' });
    expect(ambiguous.error?.message).toBe('Resource not found: test://static-text');
    // The prefixed alias reaches the never source's tool even though it is not listed.
    const alias = await rpc(all.key, 'tools/call', { name: 'conf__test_simple_text', arguments: {} });
    expect(textOf(alias.result)).toContain('This is a simple text response for testing.');

    const sources = (await (
      await get(`${h.url}/agent/sources`, all.key, { accept: 'application/json' })
    ).json()) as {
      sources: { id: string; prefix: string | null; skipped_tools: string | null }[];
    };
    const conf = sources.sources.find((s) => s.id === 'conf');
    expect(conf?.prefix).toBe('never');
    expect(conf?.skipped_tools).toContain(
      'test_simple_text (another source the key can see exposes the same name)',
    );
    expect(sources.sources.find((s) => s.id === 'twin')?.skipped_tools).toBeNull();
    expect(sources.sources.find((s) => s.id === 'demo')?.prefix).toBe('always');
    // The same names for a key that sees only the never source: nothing collides there.
    const own = (await (
      await get(`${h.url}/agent/sources`, confOnly.key, { accept: 'application/json' })
    ).json()) as {
      sources: { id: string; skipped_tools: string | null }[];
    };
    expect(own.sources.find((s) => s.id === 'conf')?.skipped_tools).toBeNull();
  });

  it('mcp:naming-patterns — tool patterns match the canonical names: a key limited to conf__test_simple_* sees and calls test_simple_text bare, nothing else of conf, and twin keeps its names', async () => {
    const listed = await rpc(narrow.key, 'tools/list', {});
    const names = ((listed.result?.['tools'] as { name: string }[]) ?? []).map((tool) => tool.name);
    // twin's tools are not visible to this key (pattern), so conf's name is not claimed twice.
    expect(names).toEqual(['test_simple_text']);
    const call = await rpc(narrow.key, 'tools/call', { name: 'test_simple_text', arguments: {} });
    expect(textOf(call.result)).toContain('simple text');
    const hidden = await rpc(narrow.key, 'tools/call', { name: 'test_image_content', arguments: {} });
    expect(hidden.error?.message).toBe('Unknown tool: test_image_content');
    const rest = (await (
      await get(`${h.url}/agent/tools`, narrow.key, { accept: 'application/json' })
    ).json()) as {
      tools: { name: string; source: string }[];
    };
    expect(rest.tools).toEqual([expect.objectContaining({ name: 'test_simple_text', source: 'conf' })]);
  });
});

interface PythonSaw {
  protocol_version: string;
  tools: string[];
  prompts: string[];
  resources: string[];
  templates: string[];
  call?: { type: string; text?: string }[];
  prompt?: unknown[];
  reads: Record<string, { uri: string; text?: string }[]>;
}

describe('through the Python SDK', () => {
  it('mcp:naming-python-sdk — the Python SDK lists, calls, gets and reads by the upstream names of a never source, in both eras', async () => {
    for (const mode of ['auto', 'legacy'] as const) {
      const saw = await runPythonClient<PythonSaw>('unprefixed_names.py', h.url, confOnly.key, mode, [
        '--tool',
        'test_simple_text',
        '--prompt',
        'test_simple_prompt',
        '--uri',
        'test://static-text',
        '--uri',
        'test://template/77/data',
      ]);
      expect(saw.protocol_version).toBe(mode === 'auto' ? '2026-07-28' : '2025-11-25');
      expect(saw.tools).toContain('test_simple_text');
      expect(saw.prompts).toContain('test_simple_prompt');
      expect(saw.resources).toContain('test://static-text');
      expect(saw.templates).toContain('test://template/{id}/data');
      expect(saw.call?.[0]?.text).toContain('simple text');
      expect(saw.prompt?.length).toBeGreaterThan(0);
      expect(saw.reads['test://static-text']?.[0]?.uri).toBe('test://static-text');
      expect(saw.reads['test://template/77/data']?.[0]?.text).toContain('77');
    }
  });
});

describe('reserved and odd names', () => {
  it("mcp:naming-reserved — an upstream's search, find_tools and call_tool are never exposed bare (never: left out and reported; auto: prefixed), while constructor and toString are ordinary bare names", async () => {
    const own = await rpc(odd.key, 'tools/list', {});
    const listed = ((own.result?.['tools'] as { name: string }[]) ?? []).map((tool) => tool.name);
    expect(listed).toEqual(['constructor', 'fine_tool', 'toString']);
    const called = await rpc(odd.key, 'tools/call', { name: 'constructor', arguments: {} });
    expect(textOf(called.result)).toBe('called constructor');
    const reserved = await rpc(odd.key, 'tools/call', { name: 'search', arguments: {} });
    expect(reserved.error?.message).toBe('Unknown tool: search');
    const alias = await rpc(odd.key, 'tools/call', { name: 'odd__search', arguments: {} });
    expect(textOf(alias.result)).toBe('called search');
    const sources = (await (
      await get(`${h.url}/agent/sources`, odd.key, { accept: 'application/json' })
    ).json()) as { sources: { id: string; skipped_tools: string | null }[] };
    expect(sources.sources.find((s) => s.id === 'odd')?.skipped_tools).toBe(
      "call_tool (the name is one of the gateway's own tools); find_tools (the name is one of the gateway's own tools); search (the name is one of the gateway's own tools)",
    );
    const everything = await rpc(all.key, 'tools/list', {});
    const all_names = ((everything.result?.['tools'] as { name: string }[]) ?? []).map((tool) => tool.name);
    expect(all_names).toEqual(
      expect.arrayContaining(['oddauto__search', 'oddauto__find_tools', 'oddauto__constructor']),
    );
    expect(all_names).not.toContain('search');
    expect(all_names).not.toContain('constructor');
  });

  it("mcp:naming-disclosure — find_tools names an unprefixed source's tools by their own names and call_tool calls them by those names", async () => {
    const found = await rpc(finder.key, 'tools/call', {
      name: 'find_tools',
      arguments: { query: 'returns one text item', limit: 3 },
    });
    const value = found.result?.['structuredContent'] as { tools: { name: string }[] };
    expect(value.tools.map((tool) => tool.name)).toContain('test_simple_text');
    expect(value.tools.some((tool) => tool.name.includes('__'))).toBe(false);
    const called = await rpc(finder.key, 'tools/call', {
      name: 'call_tool',
      arguments: { name: 'test_simple_text', arguments: {} },
    });
    expect(textOf(called.result)).toContain('simple text');
  });
});
