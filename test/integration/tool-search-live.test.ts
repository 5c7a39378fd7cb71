// Tool search against live parts (issue 23): hybrid ranking with the real all-MiniLM-L6-v2 (the
// test model server) behind find_tools and /agent/tools?query=, and the index following the
// discovery cache: a tool an upstream adds at runtime (it announces tools/list_changed) is found and
// callable through call_tool at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddings, type RunningEmbeddings } from '../infra/embeddings-server.js';
import {
  startLegacySessionfulServer,
  type RunningLegacySessionfulServer,
} from '../fixtures/upstreams/legacy-sessionful-server.js';
import { demoSource, httpSource, keyRecord, newKey } from '../support/gateway-document.js';
import { mcpPost, startWorkspace, type Harness } from '../support/gateway-harness.js';

const writer = newKey();
let model: RunningEmbeddings;
let legacy: RunningLegacySessionfulServer;
let h: Harness;

interface Found {
  retrieval?: { requested: string; used: string; fallback_reason: string | null; pending_vectors?: number };
  tools: { name: string; found_by?: string }[];
}

async function callTool(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const response = await mcpPost(h.url, writer.key, {
    method: 'tools/call',
    params: { name, arguments: args },
  });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { result?: Record<string, unknown>; error?: { message: string } };
  if (body.error !== undefined) throw new Error(body.error.message);
  return body.result as Record<string, unknown>;
}

async function find(query: string, extra: Record<string, unknown> = {}): Promise<Found> {
  return (await callTool('find_tools', { query, ...extra }))['structuredContent'] as Found;
}

beforeAll(async () => {
  model = await startEmbeddings();
  legacy = await startLegacySessionfulServer();
  h = await startWorkspace(
    {
      name: 'tools',
      toolDisclosure: 'search',
      mcpSources: [demoSource('demo'), httpSource('legacy', legacy.url)],
      keys: [keyRecord(writer, { access: 'write' })],
    },
    {
      knowledge: {
        embeddings: {
          baseUrl: `${model.url}/v1`,
          model: model.model,
          queryTimeoutMs: 30_000,
          maxRetries: 0,
          timeoutMs: 120_000,
        },
      },
    },
  );
}, 120_000);

afterAll(async () => {
  await h?.stop();
  await legacy?.close();
  await model?.stop();
});

describe('tool search with live parts', () => {
  it('tools:hybrid-live — with the real model, find_tools ranks by meaning too once the tools are embedded', async () => {
    // The tools are embedded as the gateway discovers them; a search that comes while that pass
    // runs answers by words (tools:embedded-at-discovery shows the first one after it is hybrid).
    const first = await find('what day and hour is it at the moment');
    expect(first.retrieval?.requested).toBe('hybrid');
    let found = first;
    const deadline = Date.now() + 60_000;
    while (found.retrieval?.used !== 'hybrid' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      found = await find('what day and hour is it at the moment');
    }
    expect(found.retrieval).toMatchObject({ requested: 'hybrid', used: 'hybrid', fallback_reason: null });
    // No word of the task is in the tool's name or description ("The current time as an ISO 8601
    // string"): only meaning finds it.
    expect(found.tools[0]?.name).toBe('demo__current_time');
    expect(found.tools[0]?.found_by).toBe('semantic');
    const listed = (await (
      await fetch(
        `${h.url}/agent/tools?query=${encodeURIComponent('what day and hour is it at the moment')}`,
        {
          headers: { authorization: `Bearer ${writer.key}`, accept: 'application/json' },
        },
      )
    ).json()) as Found;
    expect(listed.retrieval?.used).toBe('hybrid');
    expect(listed.tools[0]?.name).toBe('demo__current_time');
    const lexical = await find('what day and hour is it at the moment', { mode: 'lexical' });
    expect(lexical.retrieval).toMatchObject({ requested: 'lexical', used: 'lexical' });
    expect(lexical.tools.map((t) => t.name)).not.toContain('demo__current_time');
  }, 90_000);

  it('tools:index-follows-discovery — a tool added upstream (tools/list_changed) is found and called at once', async () => {
    const before = await find('quarterly forecast', { mode: 'lexical' });
    expect(before.tools.map((t) => t.name)).not.toContain('legacy__quarterly_forecast');
    await callTool('call_tool', { name: 'legacy__add_tool', arguments: { name: 'quarterly_forecast' } });
    let names: string[] = [];
    const deadline = Date.now() + 10_000;
    while (!names.includes('legacy__quarterly_forecast') && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      names = (await find('quarterly forecast', { mode: 'lexical' })).tools.map((t) => t.name);
    }
    expect(names[0]).toBe('legacy__quarterly_forecast');
    const result = await callTool('call_tool', { name: 'legacy__quarterly_forecast', arguments: {} });
    expect(result['content']).toEqual([{ type: 'text', text: 'I am quarterly_forecast' }]);
  });
});
