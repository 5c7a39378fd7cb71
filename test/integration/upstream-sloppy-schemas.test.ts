// One schema detail must cost one tool, not a whole source (issue 37.11): three real upstreams —
// a 2026-07-28 v2-SDK server (listed through the relay), a 2025-era v1-SDK server over Streamable
// HTTP and the same over stdio (listed through the SDK client) — answer tools/list with the input
// schemas published servers send (no `type`, none at all, `type: ["object"]`, PHP's empty array …)
// and three truly unusable tools. The usable tools are listed with `type: "object"` and callable;
// the unusable ones are skipped with their reason in /agent/sources and one log line per change.
// A list that is not a list at all makes the source unavailable with `last_error` saying why.
import { describe, expect, it } from 'vitest';
import type { RunningUpstream } from '../fixtures/upstreams/http-bridge.js';
import { startMisbehavingServer } from '../fixtures/upstreams/misbehaving-server.js';
import {
  sloppySchemasStdioParams,
  startSloppySchemasServer,
  UNUSABLE_TOOLS,
  USABLE_TOOLS,
} from '../fixtures/upstreams/sloppy-schemas-server.js';
import { httpSource, keyRecord, newKey } from '../support/gateway-document.js';
import { get, mcpPost, startWorkspace, fileHarness } from '../support/gateway-harness.js';

const key = newKey();
const SOURCES = ['modern', 'legacy', 'stdio'] as const;
let modern: RunningUpstream;
let legacy: RunningUpstream;
let notAList: RunningUpstream;

const h = fileHarness(
  async () => {
    modern = await startSloppySchemasServer('modern');
    legacy = await startSloppySchemasServer('legacy');
    notAList = await startMisbehavingServer({ era: 'modern', listFailure: 'not-a-tool-list' });
    return startWorkspace({
      mcpSources: [
        httpSource('modern', modern.url),
        httpSource('legacy', legacy.url),
        { name: 'stdio', transport: 'stdio', ...sloppySchemasStdioParams() },
        httpSource('notalist', notAList.url, {
          breaker: { minimumCalls: 1000 },
        }),
      ],
      keys: [keyRecord(key, { access: 'write' })],
    });
  },
  () => Promise.all([modern.close(), legacy.close(), notAList.close()]),
);

interface ListedTool {
  name: string;
  inputSchema: Record<string, unknown>;
}

interface SourceRow {
  id: string;
  status: string;
  tool_count: number;
  error_code: string | null;
  last_error: string | null;
  skipped_tool_count: number;
  skipped_tools: string | null;
}

async function sources(): Promise<SourceRow[]> {
  const response = await get(`${h.url}/agent/sources?response_format=json`, key.key);
  return ((await response.json()) as { sources: SourceRow[] }).sources;
}

describe('tool lists as published servers send them', () => {
  it('upstream:lenient-tool-schemas — input schemas without type, absent, type ["object"] or PHP-shaped are normalised and listed, in both eras and over stdio', async () => {
    const answer = (await (await mcpPost(h.url, key.key, { id: 1, method: 'tools/list' })).json()) as {
      result: { tools: ListedTool[] };
    };
    const tools = new Map(answer.result.tools.map((tool) => [tool.name, tool]));
    for (const source of SOURCES) {
      for (const name of USABLE_TOOLS) {
        const tool = tools.get(`${source}__${name}`);
        expect(tool, `${source}__${name}`).toBeDefined();
        expect(tool?.inputSchema['type'], `${source}__${name}`).toBe('object');
      }
      for (const [name] of UNUSABLE_TOOLS) expect(tools.has(`${source}__${name}`)).toBe(false);
      // Meaning kept: GitLab's properties and required, $schema; repaired: PHP's empty array.
      expect(tools.get(`${source}__get_issue`)?.inputSchema).toEqual({
        type: 'object',
        properties: { project_id: { type: 'string' }, issue_iid: { type: 'number' } },
        required: ['project_id', 'issue_iid'],
      });
      expect(tools.get(`${source}__array_type`)?.inputSchema['$schema']).toBe(
        'http://json-schema.org/draft-07/schema#',
      );
      expect(tools.get(`${source}__php_empty`)?.inputSchema).toEqual({
        type: 'object',
        additionalProperties: false,
      });
    }
    // A hint nobody can parse is dropped, never coerced: the tool needs write access.
    const rest = (await (await get(`${h.url}/agent/tools?response_format=json`, key.key)).json()) as {
      tools: { name: string; permission: string }[];
    };
    expect(rest.tools.find((tool) => tool.name === 'legacy__php_empty')?.permission).toBe('write');
  });

  it('upstream:lenient-tools-callable — a normalised tool is called like any other, in both eras and over stdio', async () => {
    for (const source of SOURCES) {
      const response = await mcpPost(h.url, key.key, {
        id: 2,
        method: 'tools/call',
        params: { name: `${source}__get_issue`, arguments: { project_id: 'g/p', issue_iid: 7 } },
      });
      const body = (await response.json()) as { result?: { content: { text: string }[] } };
      expect(body.result?.content[0]?.text, source).toBe(
        'called get_issue {"project_id":"g/p","issue_iid":7}',
      );
    }
  });

  it('upstream:unusable-tool-skipped — a truly unusable tool is skipped with its reason in /agent/sources and logged once per change', async () => {
    const rows = await sources();
    for (const source of SOURCES) {
      const row = rows.find((r) => r.id === source);
      expect(row?.status, source).toBe('ready');
      expect(row?.tool_count, source).toBe(USABLE_TOOLS.length);
      expect(row?.skipped_tool_count, source).toBe(UNUSABLE_TOOLS.length);
      for (const [name, reason] of UNUSABLE_TOOLS)
        expect(row?.skipped_tools).toContain(`${name} (${reason})`);
      expect(row?.last_error).toBeNull();
    }
    // A refresh lists the same tools again: no second log line for an unchanged skip list.
    for (const source of SOURCES) {
      const refreshed = await fetch(`${h.url}/agent/sources/${source}/refresh`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
        body: '{}',
      });
      expect(refreshed.status).toBe(200);
    }
    const skipLines = h.logs
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line['msg'] === 'upstream tools skipped');
    expect(skipLines.map((line) => line['source']).sort()).toEqual([...SOURCES].sort());
    const first = skipLines.find((line) => line['source'] === 'legacy');
    expect(first?.['skipped']).toContainEqual({
      name: 'broken_schema',
      reason: 'the input schema is not a JSON object',
    });
  });

  it('upstream:tool-list-refused-reason — a list that is not a tool list makes the source unavailable, last_error says why', async () => {
    const row = (await sources()).find((r) => r.id === 'notalist');
    expect(row?.status).toBe('unavailable');
    expect(row?.error_code).toBe('upstream_protocol_error');
    expect(row?.last_error).toBe('the tools/list result has no tools array');
  });
});
