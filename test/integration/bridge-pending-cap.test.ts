// Issue 28.1 with a real legacy upstream (v1 SDK) whose tool asks for input: 1,000 bridged calls
// from one key that never answer. Each pending call holds an upstream session and connection, so
// they are capped per key and per workspace (the rest refused as rate_limited with a retry hint),
// released after the idle timeout (the client-gone release is unit-tested with the bridge's twins);
// meanwhile another key is served normally. File descriptors and upstream sessions stay bounded.
import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startLegacySessionfulServer,
  type RunningLegacySessionfulServer,
} from '../fixtures/upstreams/legacy-sessionful-server.js';
import {
  keyRecord,
  MODERN_META,
  mcpPost,
  newKey,
  startHarness,
  type Harness,
} from '../support/gateway-harness.js';
import { until } from '../support/until.js';

const abuser = newKey();
const neighbour = newKey();
let legacy: RunningLegacySessionfulServer;
let h: Harness;
const CAP = 20;
const elicitMeta = {
  ...MODERN_META,
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
};

const openFds = () => readdirSync('/proc/self/fd').length;

beforeAll(async () => {
  legacy = await startLegacySessionfulServer();
  h = await startHarness({
    server: {
      host: '127.0.0.1',
      port: 0,
      multiRound: { maxPendingPerKey: CAP, maxPendingPerWorkspace: 100, idleTimeoutMs: 5000 },
    },
    workspaces: [
      {
        name: 'demo',
        mcpSources: [
          { name: 'legacy', transport: 'streamable-http', url: legacy.url, timeouts: { callMs: 8000 } },
        ],
        keys: [keyRecord(abuser, { access: 'write' }), keyRecord(neighbour, { access: 'write' })],
      },
    ],
  });
});

afterAll(async () => {
  await h.stop();
  await legacy.close();
});

async function ask(
  key: string,
  id: number,
): Promise<{ status: number; retryAfter: string | null; body: Record<string, unknown> }> {
  const response = await mcpPost(h.url, key, {
    id,
    method: 'tools/call',
    params: { name: 'legacy__ask_name', arguments: {}, _meta: elicitMeta },
  });
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body: (await response.json()) as Record<string, unknown>,
  };
}

describe('pending multi-round flows are bounded', () => {
  it('attacker:pending-flows-capped — 1,000 abandoned bridged calls from one key hold at most the cap; others are served; all are released after the idle timeout', async () => {
    // Warm: one call and its release, so pooled connections and caches exist before the baseline.
    const warm = await ask(neighbour.key, 0);
    expect(
      (warm.body['result'] as Record<string, unknown> | undefined)?.['resultType'],
      JSON.stringify(warm.body),
    ).toBe('input_required');
    await until('the warm-up call to be released', () =>
      Promise.resolve(legacy.activeSessions().length <= 1 ? true : undefined),
    );
    const fdsBefore = openFds();
    const sessionsBefore = legacy.activeSessions().length;

    let next = 1;
    let pending = 0;
    let refused = 0;
    let maxFds = fdsBefore;
    let maxSessions = sessionsBefore;
    let upstreamFailed = 0;
    const worker = async () => {
      while (next <= 1000) {
        const answer = await ask(abuser.key, next++);
        const result = answer.body['result'] as Record<string, unknown> | undefined;
        const error = answer.body['error'] as { code?: number; data?: { class?: string } } | undefined;
        if (answer.status === 200 && result?.['resultType'] === 'input_required') pending += 1;
        else if (answer.status === 429) {
          expect(answer.retryAfter).toMatch(/^\d+$/);
          expect(error).toMatchObject({ code: -31018, data: { code: 'rate_limited', class: 'request' } });
          refused += 1;
        } else {
          // An admitted call whose upstream failed (this 2-core machine, under the storm, sometimes
          // times out the v1 reference server): it held a slot and released it; never a refusal.
          expect(error?.data?.class, JSON.stringify(answer.body)).toBe('upstream_reachability');
          upstreamFailed += 1;
        }
        maxFds = Math.max(maxFds, openFds());
        maxSessions = Math.max(maxSessions, legacy.activeSessions().length);
      }
    };
    const neighbourCalls = (async () => {
      const results: unknown[] = [];
      for (let i = 0; i < 10; i += 1) {
        const response = await mcpPost(h.url, neighbour.key, {
          id: 5000 + i,
          method: 'tools/call',
          params: { name: 'legacy__echo', arguments: { text: `n${i}` }, _meta: MODERN_META },
        });
        results.push(((await response.json()) as { result?: unknown }).result);
      }
      return results;
    })();
    await Promise.all(Array.from({ length: 10 }, worker));
    // The other key was served throughout.
    for (const result of await neighbourCalls) expect(JSON.stringify(result)).toContain('"n');

    expect(pending).toBeLessThanOrEqual(CAP);
    expect(pending).toBeGreaterThan(0);
    expect(refused).toBeGreaterThanOrEqual(1000 - CAP - upstreamFailed);
    expect(pending + refused + upstreamFailed).toBe(1000);
    // Each pending call holds one upstream session and about two connections; gateway, upstream and
    // the 10 client workers share this process, so every connection counts twice (both ends).
    // Bounded by the cap, not by the 1,000 calls (which held ~4,000 descriptors before the cap).
    expect(maxSessions - sessionsBefore).toBeLessThanOrEqual(CAP + 2);
    expect(maxFds - fdsBefore).toBeLessThanOrEqual(10 * 2 + CAP * 2 * 2 + 40);

    // After the idle timeout every abandoned call is declined upstream and released.
    await until(
      'every pending call to be released',
      () => Promise.resolve(legacy.activeSessions().length <= sessionsBefore ? true : undefined),
      20_000,
    );
    const after = await ask(abuser.key, 9999);
    expect((after.body['result'] as Record<string, unknown> | undefined)?.['resultType']).toBe(
      'input_required',
    );
  }, 120_000);
});
