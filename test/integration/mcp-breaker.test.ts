// Per-source circuit breakers (spec §3, §8; D14) against a real hung upstream. No timings are
// asserted: isolation is proven by ordering (a healthy call finishes while a hung one is still
// pending) and by the upstream's request log (an open breaker does not contact the source). Once a
// listing of the hung source has failed, request paths leave it out and a background prober lists
// it (dead-source-probe.test.ts): its failures are what open the breaker here.
import { describe, expect, it } from 'vitest';
import { startHungServer } from '../fixtures/upstreams/hung-server.js';
import { startModernServer, type RunningModernServer } from '../fixtures/upstreams/modern-server.js';
import { until } from '../support/until.js';
import type { RunningUpstream } from '../fixtures/upstreams/http-bridge.js';
import { demoSource, httpSource, keyRecord, newKey } from '../support/gateway-document.js';
import { get, mcpPost, startWorkspace, fileHarness } from '../support/gateway-harness.js';

const key = newKey();
let hung: RunningUpstream;
let flaky: RunningUpstream | RunningModernServer;
let flakyPort: number;

const fastFail = { connectMs: 300, listMs: 300, callMs: 300 };

const h = fileHarness(
  async () => {
    hung = await startHungServer({ mode: 'hang' });
    flaky = await startHungServer({ mode: 'http500' });
    flakyPort = Number(new URL(flaky.url).port);
    return startWorkspace({
      mcpSources: [
        demoSource('healthy'),
        httpSource('hung', hung.url, {
          timeouts: fastFail,
          breaker: { minimumCalls: 3, resetTimeoutMs: 600_000 },
        }),
        httpSource('flaky', `http://127.0.0.1:${flakyPort}/mcp`, {
          timeouts: fastFail,
          breaker: { minimumCalls: 2, resetTimeoutMs: 500 },
        }),
      ],
      keys: [keyRecord(key, { access: 'write' })],
    });
  },
  async () => {
    await hung.close();
    await flaky.close();
  },
);

async function sources(): Promise<
  Record<string, { status: string; breaker: string; error_code: string | null }>
> {
  const body = (await (await get(`${h.url}/agent/sources?response_format=json`, key.key)).json()) as {
    sources: { id: string; status: string; breaker: string; error_code: string | null }[];
  };
  return Object.fromEntries(body.sources.map((s) => [s.id, s]));
}

describe('a hung source', () => {
  it('mcp:breaker-isolation — a healthy source answers while a call to the hung source is still pending', async () => {
    // Warm the healthy source's stdio process first, so only the hung source can be slow below.
    await mcpPost(h.url, key.key, {
      method: 'tools/call',
      params: { name: 'healthy__echo', arguments: { text: 'warm' } },
    });
    // An explicit refresh lists the hung source now (a tools/list no longer waits on it).
    let hungSettled = false;
    const hungCall = fetch(`${h.url}/agent/sources/hung/refresh`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.key}` },
    }).then(() => {
      hungSettled = true;
      return mcpPost(h.url, key.key, { method: 'tools/list' }).then((r) => r.json());
    });
    const healthy = (await (
      await mcpPost(h.url, key.key, {
        method: 'tools/call',
        params: { name: 'healthy__echo', arguments: { text: 'still fast' } },
      })
    ).json()) as {
      result: { content: { text: string }[] };
    };
    expect(healthy.result.content[0]?.text).toBe('still fast');
    expect(hungSettled).toBe(false);
    const list = (await hungCall) as {
      result: { tools: { name: string }[]; _meta: Record<string, { source: string; code: string }[]> };
    };
    expect(list.result.tools.some((t) => t.name.startsWith('healthy__'))).toBe(true);
    expect(list.result._meta['io.agentgateway/unavailableSources']?.map((s) => s.source)).toEqual(
      expect.arrayContaining(['hung']),
    );
  });

  it('mcp:breaker-opens — after repeated failures the breaker opens and the source is no longer contacted', async () => {
    // The background prober's failed listings (minimumCalls 3) open it; requests do not list it.
    await until('the breaker of the hung source to open', async () =>
      (await sources())['hung']?.breaker === 'open' ? true : undefined,
    );
    const state = (await sources())['hung'];
    // The code of the last attempt: the time-out that opened it, or a probe the open breaker refused.
    expect(state).toMatchObject({
      status: 'unavailable',
      breaker: 'open',
      error_code: expect.stringMatching(/^upstream_(timeout|circuit_open)$/),
    });
    const contacts = hung.log.length;
    const list = (await (await mcpPost(h.url, key.key, { method: 'tools/list' })).json()) as {
      result: { _meta: Record<string, { source: string; code: string; class: string }[]> };
    };
    expect(list.result._meta['io.agentgateway/unavailableSources']).toEqual(
      expect.arrayContaining([
        {
          source: 'hung',
          code: expect.stringMatching(/^upstream_(timeout|circuit_open)$/),
          class: 'upstream_reachability',
        },
      ]),
    );
    expect(hung.log.length).toBe(contacts);
  });
});

describe('recovery', () => {
  it('mcp:breaker-recovers — once the reset time has passed a probe goes through and closes the breaker', async () => {
    await until('the breaker of the flaky source to open', async () =>
      (await sources())['flaky']?.breaker === 'open' ? true : undefined,
    );
    await flaky.close();
    flaky = await startModernServer({ port: flakyPort });
    const deadline = Date.now() + 10_000;
    let state = await sources();
    while (state['flaky']?.status !== 'ready' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      await fetch(`${h.url}/agent/sources/flaky/refresh`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key.key}` },
      });
      state = await sources();
    }
    expect(state['flaky']).toMatchObject({ status: 'ready', breaker: 'closed', error_code: null });
    const call = (await (
      await mcpPost(h.url, key.key, {
        method: 'tools/call',
        params: { name: 'flaky__echo', arguments: { text: 'back' } },
      })
    ).json()) as {
      result: { content: { text: string }[] };
    };
    expect(JSON.stringify(call.result.content)).toContain('back');
  });
});
