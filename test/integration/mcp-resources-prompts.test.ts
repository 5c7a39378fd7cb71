// Resources and prompts of upstreams (issue 3): listed across sources, namespaced like tools
// (`agw://<source>/<uri>`, `<source>__<prompt>`), read and fetched through the owning upstream, and
// invisible to keys that may not see the source — answering exactly like missing ones.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { pairHarness } from '../support/fixture-pair.js';
import { keyRecord, newKeys } from '../support/gateway-document.js';
import { mcpPost, startWorkspace } from '../support/gateway-harness.js';

const [all, modernOnly] = newKeys(2);
const [h] = pairHarness((upstreams) =>
  startWorkspace({
    mcpSources: upstreams.sources,
    keys: [keyRecord(all), keyRecord(modernOnly, { sources: ['modern'] })],
  }),
);

async function result(response: Response) {
  return (await response.json()) as {
    result?: Record<string, unknown>;
    error?: { code: number; message: string };
  };
}

describe('resources', () => {
  it('mcp:resources-namespaced — resources of every source are listed under namespaced URIs and read back', async () => {
    const client = new Client(
      { name: 'it-resources', version: '1.0.0' },
      { versionNegotiation: { mode: 'auto' } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${all.key}` } },
      }),
    );
    const { resources } = await client.listResources();
    const uris = resources.map((r) => r.uri);
    expect(uris).toEqual([
      `agw://legacy/${encodeURIComponent('legacy://readme')}`,
      `agw://modern/${encodeURIComponent('demo://readme')}`,
    ]);
    const read = await client.readResource({ uri: uris[1]! });
    expect(read.contents[0]).toMatchObject({ uri: uris[1], text: 'Hello from the modern fixture.' });
    const fromLegacy = await client.readResource({ uri: uris[0]! });
    expect(fromLegacy.contents[0]?.uri).toBe(uris[0]);
    await client.close();
  });

  it('mcp:resources-visibility — a resource of a source the key cannot see answers like a missing one', async () => {
    const list = await result(await mcpPost(h.url, modernOnly.key, { method: 'resources/list' }));
    expect((list.result?.['resources'] as { uri: string }[]).map((r) => r.uri)).toEqual([
      `agw://modern/${encodeURIComponent('demo://readme')}`,
    ]);
    const hidden = await result(
      await mcpPost(h.url, modernOnly.key, {
        method: 'resources/read',
        params: { uri: `agw://legacy/${encodeURIComponent('legacy://readme')}` },
      }),
    );
    const missing = await result(
      await mcpPost(h.url, modernOnly.key, {
        method: 'resources/read',
        params: { uri: `agw://nosuch/${encodeURIComponent('legacy://readme')}` },
      }),
    );
    expect(hidden.error?.code).toBe(-32602);
    expect(hidden.error?.code).toBe(missing.error?.code);
    expect(hidden.error?.message.replace('legacy', 'X')).toBe(missing.error?.message.replace('nosuch', 'X'));
  });
});

describe('prompts', () => {
  it('mcp:prompts-namespaced — prompts are listed as <source>__<prompt> and fetched from their source', async () => {
    const list = await result(await mcpPost(h.url, all.key, { method: 'prompts/list' }));
    expect((list.result?.['prompts'] as { name: string }[]).map((p) => p.name)).toEqual([
      'legacy__greet',
      'modern__greet',
    ]);
    const got = await result(
      await mcpPost(h.url, all.key, {
        method: 'prompts/get',
        params: { name: 'modern__greet', arguments: { name: 'Ada' } },
      }),
    );
    expect(JSON.stringify(got.result?.['messages'])).toContain('Please greet Ada.');
    const hidden = await result(
      await mcpPost(h.url, modernOnly.key, {
        method: 'prompts/get',
        params: { name: 'legacy__greet', arguments: { name: 'Ada' } },
      }),
    );
    expect(hidden.error?.code).toBe(-32602);
    expect(hidden.error?.message).toBe('Unknown prompt: legacy__greet');
  });
});
