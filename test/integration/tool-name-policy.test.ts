// Upstream names are screened (issue 8 item 7): names outside the MCP tool-name grammar, with the
// namespace separator, or repeated are skipped and reported in /agent/sources and the log, never
// served; Object.prototype's own names are ordinary names and never pick up inherited values.
import { describe, expect, it } from 'vitest';
import type { RunningUpstream } from '../fixtures/upstreams/http-bridge.js';
import { startHostileNamesServer } from '../fixtures/upstreams/hostile-names-server.js';
import { httpSource, keyRecord, newKeys } from '../support/gateway-document.js';
import { get, mcpPost, startWorkspace, fileHarness } from '../support/gateway-harness.js';

const [writer, reader] = newKeys(2);
let upstream: RunningUpstream;

const h = fileHarness(
  async () => {
    upstream = await startHostileNamesServer();
    return startWorkspace({
      mcpSources: [
        httpSource('hostile', upstream.url, {
          permissions: { toString: 'read' },
        }),
      ],
      keys: [keyRecord(writer, { access: 'write' }), keyRecord(reader, { access: 'read' })],
    });
  },
  () => upstream.close(),
);

interface ListAnswer {
  result: { tools?: { name: string }[]; prompts?: { name: string }[] };
}

describe('the tool-name policy', () => {
  it('discovery:name-grammar — only grammatical, unique names are served, over MCP and REST', async () => {
    const list = (await (await mcpPost(h.url, writer.key, { method: 'tools/list' })).json()) as ListAnswer;
    const names = (list.result.tools ?? []).map((t) => t.name).sort();
    expect(names).toEqual([
      'hostile__constructor',
      'hostile__dup',
      'hostile__fine_tool',
      'hostile__toString',
    ]);
    const rest = (await (await get(`${h.url}/agent/tools?response_format=json`, writer.key)).json()) as {
      tools: { name: string }[];
    };
    expect(rest.tools.map((t) => t.name).sort()).toEqual(names);
    const prompts = (await (
      await mcpPost(h.url, writer.key, { method: 'prompts/list' })
    ).json()) as ListAnswer;
    expect((prompts.result.prompts ?? []).map((p) => p.name).sort()).toEqual([
      'hostile__constructor',
      'hostile__dup',
      'hostile__fine_tool',
      'hostile__toString',
    ]);
  });

  it('discovery:skipped-reported — skipped tools are counted and named (printably) with a reason in /agent/sources and the log', async () => {
    const body = (await (await get(`${h.url}/agent/sources?response_format=json`, writer.key)).json()) as {
      sources: { id: string; tool_count: number; skipped_tool_count: number; skipped_tools: string }[];
    };
    const source = body.sources.find((s) => s.id === 'hostile');
    expect(source?.tool_count).toBe(4);
    expect(source?.skipped_tool_count).toBe(11);
    const text = source?.skipped_tools ?? '';
    expect(text).toContain('../etc/passwd (the name has characters outside A-Z a-z 0-9 _ . -)');
    expect(text).toContain('nul\\u{0}byte');
    expect(text).toContain('tab\\u{9}name');
    expect(text).toContain('look\\u{430}like');
    expect(text).toContain('(the name is empty)');
    expect(text).toContain('a__b (the name contains "__", the namespace separator)');
    expect(text).toContain('__proto__ (the name contains "__"');
    expect(text).toContain('dup (the name repeats an earlier tool of this source)');
    expect(text).toContain('(the name is longer than 128 characters)');
    expect(text).not.toMatch(/[\u0000-\u001f]/);
    const warning = h.logs.find((line) => line.includes('upstream tools skipped'));
    expect(warning).toBeDefined();
    expect(warning).toContain('"skippedCount":11');
  });

  it('discovery:prototype-safe — constructor and toString are plain tools; permissions are own keys only', async () => {
    const call = async (key: string, name: string) =>
      (await (
        await mcpPost(h.url, key, { method: 'tools/call', params: { name, arguments: {} } })
      ).json()) as { result?: { content: { text: string }[] }; error?: { data?: { code?: string } } };
    expect((await call(writer.key, 'hostile__constructor')).result?.content[0]?.text).toBe(
      'called constructor',
    );
    // Read-only by its annotation; no own override, whatever Object.prototype holds under that name.
    expect((await call(reader.key, 'hostile__constructor')).result?.content[0]?.text).toBe(
      'called constructor',
    );
    expect((await call(reader.key, 'hostile__fine_tool')).error?.data?.code).toBe('forbidden');
    // An own override applies.
    expect((await call(reader.key, 'hostile__toString')).result?.content[0]?.text).toBe('called toString');
    const sent = upstream.log.filter((entry) => entry.rpcMethod === 'tools/call').map((entry) => entry.name);
    expect(sent).not.toContain('__proto__');
  });
});
