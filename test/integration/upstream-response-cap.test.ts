// The per-source upstream response cap (issue 8 item 3) against real upstreams of both eras: a 2026
// v2-SDK server answering JSON through the relay, and a 2025 v1-SDK server answering on an SSE
// stream through the SDK client. Oversized answers become `upstream_response_too_large` in-band,
// answers just under the cap pass whole, and oversized tool lists mark the source, not the gateway.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningUpstream } from '../fixtures/upstreams/http-bridge.js';
import { startMisbehavingServer } from '../fixtures/upstreams/misbehaving-server.js';
import { keyRecord, newKey } from '../support/gateway-document.js';
import { get, mcpPost, startWorkspace, type Harness } from '../support/gateway-harness.js';

const key = newKey();
const CAP = 64 * 1024;
let modern: RunningUpstream;
let legacy: RunningUpstream;
let modernPadded: RunningUpstream;
let legacyPadded: RunningUpstream;
let h: Harness;

beforeAll(async () => {
  [modern, legacy, modernPadded, legacyPadded] = await Promise.all([
    startMisbehavingServer({ era: 'modern' }),
    startMisbehavingServer({ era: 'legacy' }),
    startMisbehavingServer({ era: 'modern', padTools: 40 }),
    startMisbehavingServer({ era: 'legacy', padTools: 40 }),
  ]);
  const http = (name: string, url: string, extra: Record<string, unknown> = {}) => ({
    name,
    transport: 'streamable-http',
    url,
    ...extra,
  });
  h = await startWorkspace({
    mcpSources: [
      http('modern', modern.url),
      http('legacy', legacy.url),
      http('modern-small', modern.url, { limits: { maxResponseBytes: CAP } }),
      http('legacy-small', legacy.url, { limits: { maxResponseBytes: CAP } }),
      http('modern-list', modernPadded.url, { limits: { maxResponseBytes: 4096 } }),
      http('legacy-list', legacyPadded.url, { limits: { maxResponseBytes: 4096 } }),
    ],
    keys: [keyRecord(key, { access: 'write' })],
  });
});
afterAll(async () => {
  await h.stop();
  await Promise.all([modern, legacy, modernPadded, legacyPadded].map((u) => u.close()));
});

interface RpcAnswer {
  result?: { content?: { text?: string }[]; tools?: { name: string }[] };
  error?: { code: number; message: string; data?: { code?: string; source?: string } };
}

async function callBig(tool: string, bytes: number): Promise<{ status: number; body: RpcAnswer }> {
  const response = await mcpPost(h.url, key.key, {
    method: 'tools/call',
    params: { name: tool, arguments: { bytes } },
  });
  return { status: response.status, body: (await response.json()) as RpcAnswer };
}

describe.each([['modern'], ['legacy']])('the %s era', (era) => {
  it(`upstream:response-cap — a 50 MB tool result under the default 8 MiB cap is refused in-band as upstream_response_too_large (${era})`, async () => {
    const { status, body } = await callBig(`${era}__big`, 50 * 1024 * 1024);
    expect(status).toBe(200);
    expect(body.result).toBeUndefined();
    expect(body.error?.code).toBe(-31017);
    expect(body.error?.data).toMatchObject({ code: 'upstream_response_too_large', source: era });
    expect(body.error?.message).toContain('maxResponseBytes');
    // The source keeps working after the refusal.
    const echo = await mcpPost(h.url, key.key, {
      method: 'tools/call',
      params: { name: `${era}__echo`, arguments: { text: 'still here' } },
    });
    expect(((await echo.json()) as RpcAnswer).result?.content?.[0]?.text).toBe('still here');
  });

  it(`upstream:response-cap-boundary — an answer just under a configured cap passes whole; just over it is refused (${era})`, async () => {
    const under = await callBig(`${era}-small__big`, CAP - 1024);
    expect(under.body.error).toBeUndefined();
    expect(under.body.result?.content?.[0]?.text).toHaveLength(CAP - 1024);
    const over = await callBig(`${era}-small__big`, CAP + 1);
    expect(over.body.error?.data?.code).toBe('upstream_response_too_large');
  });
});

it('upstream:response-cap-lists — a tool list over the cap leaves that source out with the error code, other sources unaffected', async () => {
  const response = await get(`${h.url}/agent/sources?response_format=json`, key.key);
  const { sources } = (await response.json()) as {
    sources: { id: string; status: string; error_code: string | null; tool_count: number }[];
  };
  const byId = new Map(sources.map((s) => [s.id, s]));
  for (const id of ['modern-list', 'legacy-list']) {
    expect(byId.get(id)).toMatchObject({ status: 'unavailable', error_code: 'upstream_response_too_large' });
  }
  expect(byId.get('modern')?.status).toBe('ready');
  const list = await mcpPost(h.url, key.key, { method: 'tools/list' });
  const names = ((await list.json()) as RpcAnswer).result?.tools?.map((t) => t.name) ?? [];
  expect(names).toContain('modern__echo');
  expect(names.some((n) => n.startsWith('modern-list__') || n.startsWith('legacy-list__'))).toBe(false);
});
