// A source that stops answering among healthy ones (issue 37 item 12, D14): requests use what is
// known about it and never wait on it, the gateway says so once in its log (and once more when it
// is back), and a background prober brings it back without any client request. Real upstreams: a
// v2-SDK server, a port that refuses connections, a server that accepts requests and never answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../infra/free-port.js';
import { startHungServer } from '../fixtures/upstreams/hung-server.js';
import { startModernServer, type RunningModernServer } from '../fixtures/upstreams/modern-server.js';
import type { RunningUpstream } from '../fixtures/upstreams/http-bridge.js';
import { httpSource, keyRecord, newKey } from '../support/gateway-document.js';
import { get, mcpPost, startWorkspace, type Harness } from '../support/gateway-harness.js';
import { until } from '../support/until.js';

const key = newKey();

interface LogLine {
  level: number;
  msg: string;
  source?: string;
}

function linesAbout(h: Harness, source: string, level: number): LogLine[] {
  return h.logs
    .map((line) => JSON.parse(line) as LogLine)
    .filter((line) => line.source === source && line.level === level);
}

const WARN = 40;
const INFO = 30;

async function toolsList(h: Harness): Promise<{ tools: { name: string }[]; unavailable: string[] }> {
  const body = (await (await mcpPost(h.url, key.key, { method: 'tools/list' })).json()) as {
    result: { tools: { name: string }[]; _meta?: Record<string, { source: string }[]> };
  };
  const unavailable = body.result._meta?.['io.agentgateway/unavailableSources'] ?? [];
  return { tools: body.result.tools, unavailable: unavailable.map((s) => s.source) };
}

async function agentTools(
  h: Harness,
): Promise<{ tools: { name: string }[]; unavailable_sources?: { id: string }[] }> {
  return (await (await get(`${h.url}/agent/tools?response_format=json`, key.key)).json()) as {
    tools: { name: string }[];
    unavailable_sources?: { id: string }[];
  };
}

async function sourceRecord(h: Harness, id: string): Promise<Record<string, unknown> | undefined> {
  const body = (await (await get(`${h.url}/agent/sources?response_format=json`, key.key)).json()) as {
    sources: Record<string, unknown>[];
  };
  return body.sources.find((s) => s['id'] === id);
}

describe('a source whose port refuses connections', () => {
  let healthy: RunningModernServer;
  let revived: RunningModernServer | undefined;
  let gonePort: number;
  let h: Harness;

  beforeAll(async () => {
    healthy = await startModernServer();
    gonePort = await freePort();
    h = await startWorkspace({
      mcpSources: [
        httpSource('healthy', healthy.url),
        httpSource('gone', `http://127.0.0.1:${gonePort}/mcp`, {
          timeouts: { connectMs: 2000, listMs: 2000, callMs: 2000 },
          breaker: { resetTimeoutMs: 1000 },
        }),
      ],
      keys: [keyRecord(key, { access: 'write' })],
    });
  });
  afterAll(async () => {
    await h.stop();
    await healthy.close();
    await revived?.close();
  });

  it('discovery:dead-source-warns-once — 30 requests to /mcp and /agent/tools log its failure once, not per request', async () => {
    for (let i = 0; i < 15; i += 1) {
      const listed = await toolsList(h);
      expect(listed.tools.some((t) => t.name.startsWith('healthy__'))).toBe(true);
      expect(listed.unavailable).toEqual(['gone']);
      const rest = await agentTools(h);
      expect(rest.tools.some((t) => t.name.startsWith('healthy__'))).toBe(true);
      expect(rest.unavailable_sources?.map((s) => s.id)).toEqual(['gone']);
    }
    expect(linesAbout(h, 'gone', WARN).length).toBeGreaterThanOrEqual(1);
    expect(linesAbout(h, 'gone', WARN).length).toBeLessThanOrEqual(2);
    const record = await sourceRecord(h, 'gone');
    expect(record).toMatchObject({ status: 'unavailable', error_code: expect.stringMatching(/^upstream_/) });
    expect(record?.['failing_since']).toEqual(expect.any(String));
    expect(record?.['next_probe_at']).toEqual(expect.any(String));
    expect(record?.['last_error']).toEqual(expect.any(String));
  });

  it('discovery:dead-source-probed-back — when the port answers again the prober restores the source with no client request', async () => {
    const before = linesAbout(h, 'gone', INFO).length;
    revived = await startModernServer({ port: gonePort });
    // No request reaches the gateway from here until the prober has listed the revived upstream.
    await until(
      'the prober to list the revived source',
      () =>
        Promise.resolve(revived?.log.some((r) => r.rpcMethod === 'tools/list') === true ? true : undefined),
      20_000,
    );
    await until(
      'the recovery log line',
      () => Promise.resolve(linesAbout(h, 'gone', INFO).length > before ? true : undefined),
      5000,
    );
    const record = await sourceRecord(h, 'gone');
    expect(record).toMatchObject({
      status: 'ready',
      error_code: null,
      failing_since: null,
      next_probe_at: null,
    });
    const listed = await toolsList(h);
    expect(listed.tools.some((t) => t.name.startsWith('gone__'))).toBe(true);
    expect(listed.unavailable).toEqual([]);
    expect(linesAbout(h, 'gone', WARN).length).toBeLessThanOrEqual(2);
  });
});

describe('a source that accepts requests and never answers', () => {
  let healthy: RunningModernServer;
  let hung: RunningUpstream;
  let h: Harness;
  const listMs = 5000;

  beforeAll(async () => {
    healthy = await startModernServer();
    hung = await startHungServer({ mode: 'hang' });
    h = await startWorkspace({
      mcpSources: [
        httpSource('healthy', healthy.url),
        httpSource('hung', hung.url, {
          timeouts: { connectMs: listMs, listMs, callMs: listMs },
          // The breaker alone would keep letting request-path listings through for a long while.
          breaker: { minimumCalls: 1000, resetTimeoutMs: 60_000 },
        }),
      ],
      keys: [keyRecord(key, { access: 'write' })],
    });
    // The first discovery (the gateway's warm-up) finds out that it hangs.
    await until('the hung source to be known as failing', async () =>
      (await sourceRecord(h, 'hung'))?.['status'] === 'unavailable' ? true : undefined,
    );
  }, 60_000);
  afterAll(async () => {
    await h.stop();
    await hung.close();
    await healthy.close();
  });

  it('discovery:dead-source-off-request-path — requests neither contact the hanging source nor wait for its time-out', async () => {
    const contacts = hung.log.length;
    const durations: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      let started = performance.now();
      const listed = await toolsList(h);
      durations.push(performance.now() - started);
      expect(listed.tools.some((t) => t.name.startsWith('healthy__'))).toBe(true);
      expect(listed.unavailable).toEqual(['hung']);
      started = performance.now();
      const rest = await agentTools(h);
      durations.push(performance.now() - started);
      expect(rest.unavailable_sources?.map((s) => s.id)).toEqual(['hung']);
    }
    // Every request answered well inside the source's list time-out: none waited on it.
    expect(Math.max(...durations)).toBeLessThan(listMs / 2);
    // 10 requests; the prober's own attempts (one at a time, with backoff) are all that reached it.
    expect(hung.log.length - contacts).toBeLessThanOrEqual(2);
    expect(linesAbout(h, 'hung', WARN).length).toBeLessThanOrEqual(2);
  }, 120_000);
});
