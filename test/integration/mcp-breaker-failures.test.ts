// What opens a source's circuit breaker (issue 8 item 8), against real upstreams of both eras whose
// discovery works but whose tools/call answers are scripted failures: 5xx and answers that are not
// MCP (bad JSON, garbage SSE, the answer to another request) count and are classified as such,
// fast; a 4xx, a JSON-RPC error and a tool error are answers about one request and never open it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningUpstream } from '../fixtures/upstreams/http-bridge.js';
import { startMisbehavingServer, type CallFailure } from '../fixtures/upstreams/misbehaving-server.js';
import { keyRecord, newKey } from '../support/gateway-document.js';
import { get, mcpPost, startWorkspace, type Harness } from '../support/gateway-harness.js';

const key = newKey();
const ERAS = ['modern', 'legacy'] as const;
const FAILURES: readonly CallFailure[] = [
  'http500',
  'garbage-json',
  'garbage-sse',
  'wrong-id',
  'http404',
  'rpc-error',
];
const upstreams: RunningUpstream[] = [];
let healthy: Record<(typeof ERAS)[number], RunningUpstream>;
let h: Harness;

const sourceName = (era: string, failure: string) => `${era}-${failure}`;

beforeAll(async () => {
  const sources: Record<string, unknown>[] = [];
  for (const era of ERAS) {
    for (const failure of FAILURES) {
      const upstream = await startMisbehavingServer({ era, callFailure: failure });
      upstreams.push(upstream);
      sources.push({
        name: sourceName(era, failure),
        transport: 'streamable-http',
        url: upstream.url,
        // A time-out far above the test's own: a failure classified as a time-out would fail the test.
        timeouts: { connectMs: 5000, listMs: 5000, callMs: 120_000 },
        breaker: { minimumCalls: 3, failureThresholdPercent: 50, resetTimeoutMs: 600_000 },
      });
    }
  }
  healthy = {
    modern: await startMisbehavingServer({ era: 'modern' }),
    legacy: await startMisbehavingServer({ era: 'legacy' }),
  };
  const badList = await startMisbehavingServer({ era: 'modern', listFailure: 'not-a-tool-list' });
  upstreams.push(badList);
  sources.push({
    name: 'modern-bad-list',
    transport: 'streamable-http',
    url: badList.url,
    // Every listing fails: a breaker that never opens keeps the answer about the list itself.
    breaker: { minimumCalls: 1000 },
  });
  for (const era of ERAS)
    sources.push({
      name: `${era}-tool-error`,
      transport: 'streamable-http',
      url: healthy[era].url,
      breaker: { minimumCalls: 3, failureThresholdPercent: 50, resetTimeoutMs: 600_000 },
    });
  h = await startWorkspace({ mcpSources: sources, keys: [keyRecord(key, { access: 'write' })] });
});
afterAll(async () => {
  await h.stop();
  await Promise.all([...upstreams, ...Object.values(healthy)].map((u) => u.close()));
});

interface Answer {
  result?: { isError?: boolean };
  error?: { code: number; data?: { code?: string } };
}

async function call(tool: string): Promise<Answer> {
  const response = await mcpPost(h.url, key.key, {
    method: 'tools/call',
    params: { name: tool, arguments: { text: 'x' } },
  });
  return (await response.json()) as Answer;
}

async function breakerOf(source: string): Promise<string | undefined> {
  const response = await get(`${h.url}/agent/sources?response_format=json`, key.key);
  const { sources } = (await response.json()) as { sources: { id: string; breaker: string }[] };
  return sources.find((s) => s.id === source)?.breaker;
}

const COUNTED: readonly [CallFailure, string][] = [
  ['http500', 'upstream_unreachable'],
  ['garbage-json', 'upstream_protocol_error'],
  ['garbage-sse', 'upstream_protocol_error'],
  ['wrong-id', 'upstream_protocol_error'],
];

describe.each(ERAS)('the %s era', (era) => {
  it.each(COUNTED)(
    `breaker:counts-fast-failures — %s is classified %s at once and opens the breaker (${era})`,
    async (failure, code) => {
      const source = sourceName(era, failure);
      for (let i = 0; i < 3; i += 1) expect((await call(`${source}__echo`)).error?.data?.code).toBe(code);
      expect(await breakerOf(source)).toBe('open');
      expect((await call(`${source}__echo`)).error?.data?.code).toBe('upstream_circuit_open');
    },
  );

  it(`breaker:ignores-answers — a 4xx, a JSON-RPC error and a tool error never open the breaker (${era})`, async () => {
    for (let i = 0; i < 4; i += 1) {
      const notFound = await call(`${sourceName(era, 'http404')}__echo`);
      expect(notFound.error?.data?.code).toBe('upstream_protocol_error');
      const rpc = await call(`${sourceName(era, 'rpc-error')}__echo`);
      expect(rpc.error?.code).toBe(-32602);
      const tool = await call(`${era}-tool-error__fail`);
      expect(tool.result?.isError).toBe(true);
    }
    expect(await breakerOf(sourceName(era, 'http404'))).toBe('closed');
    expect(await breakerOf(sourceName(era, 'rpc-error'))).toBe('closed');
    expect(await breakerOf(`${era}-tool-error`)).toBe('closed');
  });
});

describe('a 2026 upstream whose tools/list is not a tool list', () => {
  it('breaker:bad-tool-list — the source is reported unavailable as a protocol error, its tools are not offered, and a call says why', async () => {
    const listed = await mcpPost(h.url, key.key, { method: 'tools/list', params: {} });
    const body = (await listed.json()) as {
      result: { tools: { name: string }[]; _meta?: Record<string, { source: string; code?: string }[]> };
    };
    expect(body.result.tools.some((tool) => tool.name.startsWith('modern-bad-list__'))).toBe(false);
    const unavailable = body.result._meta?.['io.agentgateway/unavailableSources'] ?? [];
    expect(unavailable.find((entry) => entry.source === 'modern-bad-list')?.code).toBe(
      'upstream_protocol_error',
    );
    const answer = await call('modern-bad-list__echo');
    expect(answer.error?.data?.code).toBe('upstream_protocol_error');
  });
});
