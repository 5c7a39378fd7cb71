// Issue 28.1 with a real legacy upstream (v1 SDK) whose tools ask for input: 1,000 bridged calls
// from one key that never answer. Each waiting call holds an upstream session and about two
// connections, so waiting calls are capped per key (the rest refused as rate_limited with a retry
// hint, before any upstream work) and released after the idle timeout; meanwhile another key is
// served. Descriptors and upstream sessions stay bounded by the cap, not by the calls. A call whose
// client goes away before its first answer lets its session go at once.
import { readdirSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createLegacyMcpServer } from '../fixtures/upstreams/legacy-tools.js';
import {
  startLegacySessionfulServer,
  type RunningLegacySessionfulServer,
} from '../fixtures/upstreams/legacy-sessionful-server.js';
import { keyRecord, newKeys } from '../support/gateway-document.js';
import { mcpPost, MODERN_META, startWorkspace, fileHarness } from '../support/gateway-harness.js';
import { until } from '../support/until.js';

const [abuser, neighbour, leaver] = newKeys(3);
let legacy: RunningLegacySessionfulServer;
const CAP = 20;
const WORKERS = 10;
// Longer than the 1,000 calls take even on a loaded CI machine (about 4 s quiet): a flow released by
// its idle timeout during the loop would let a new one in, and the count would no longer be the cap's.
const IDLE_MS = 20_000;
const elicitMeta = {
  ...MODERN_META,
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
};

const openFds = () => readdirSync('/proc/self/fd').length;
const liveSessions = () => legacy.activeSessions().length;

/** The shared legacy tools plus `slow_ask`, which works for `ms` before it asks for a name. */
function createServer() {
  const server = createLegacyMcpServer();
  server.registerTool(
    'slow_ask',
    { description: 'Waits, then asks for a name.', inputSchema: { ms: z.number().int() } },
    async ({ ms }): Promise<CallToolResult> => {
      await sleep(ms);
      const answer = await server.server.elicitInput({
        message: 'What is your name?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
      });
      return { content: [{ type: 'text', text: `slow ${answer.action}` }] };
    },
  );
  return server;
}

const h = fileHarness(
  async () => {
    legacy = await startLegacySessionfulServer({ createServer });
    return startWorkspace(
      {
        mcpSources: [
          { name: 'legacy', transport: 'streamable-http', url: legacy.url, timeouts: { callMs: 8000 } },
        ],
        keys: [abuser, neighbour, leaver].map((k) => keyRecord(k, { access: 'write' })),
      },
      {
        server: {
          host: '127.0.0.1',
          port: 0,
          multiRound: { maxPendingPerKey: CAP, maxPendingPerWorkspace: 100, idleTimeoutMs: IDLE_MS },
        },
      },
    );
  },
  () => legacy.close(),
);

type Answer = { status: number; retryAfter: string | null; body: Record<string, unknown> };

async function ask(key: string, id: number, params: Record<string, unknown> = {}): Promise<Answer> {
  const response = await mcpPost(h.url, key, {
    id,
    method: 'tools/call',
    params: { name: 'legacy__ask_name', arguments: {}, _meta: elicitMeta, ...params },
  });
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body: (await response.json()) as Record<string, unknown>,
  };
}

const resultOf = (answer: Answer) => answer.body['result'] as Record<string, unknown> | undefined;

describe('pending multi-round flows are bounded', () => {
  it('attacker:pending-flows-capped — 1,000 abandoned bridged calls from one key hold at most the cap; others are served; all are released after the idle timeout', async () => {
    // Warm: one call and its release, so pooled connections and caches exist before the baseline.
    const warm = await ask(neighbour.key, 0);
    expect(resultOf(warm)?.['resultType'], JSON.stringify(warm.body)).toBe('input_required');
    await until('the warm-up call to be released', () =>
      Promise.resolve(liveSessions() <= 1 ? true : undefined),
    );
    const fdsBefore = openFds();
    const sessionsBefore = liveSessions();
    const issuedBefore = legacy.sessionsIssued.length;

    let next = 1;
    let pending = 0;
    let refused = 0;
    let maxFds = fdsBefore;
    let maxSessions = sessionsBefore;
    const worker = async () => {
      while (next <= 1000) {
        const answer = await ask(abuser.key, next++);
        const error = answer.body['error'] as { code?: number; data?: { class?: string } } | undefined;
        if (answer.status === 200 && resultOf(answer)?.['resultType'] === 'input_required') pending += 1;
        else {
          // Nothing else: every admitted call gets its question (the call waits for the session's
          // stream), every other one is refused.
          expect(answer.status, JSON.stringify(answer.body)).toBe(429);
          const wait = Number(answer.retryAfter);
          expect(wait).toBeGreaterThanOrEqual(1);
          expect(wait).toBeLessThanOrEqual(IDLE_MS / 1000);
          expect(error).toMatchObject({
            code: -31018,
            data: { code: 'rate_limited', class: 'request', retryAfterSeconds: wait },
          });
          refused += 1;
        }
        maxFds = Math.max(maxFds, openFds());
        maxSessions = Math.max(maxSessions, liveSessions());
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
    const loopStarted = Date.now();
    await Promise.all(Array.from({ length: WORKERS }, worker));
    const loopMs = Date.now() - loopStarted;
    expect(
      loopMs,
      'the 1,000 calls outlasted the idle timeout, so flows were released mid-loop',
    ).toBeLessThan(IDLE_MS);
    // The other key was served throughout, and may start a flow of its own.
    for (const result of await neighbourCalls) expect(JSON.stringify(result)).toContain('"n');
    expect(resultOf(await ask(neighbour.key, 6000))?.['resultType']).toBe('input_required');

    expect(pending).toBe(CAP);
    expect(refused).toBe(1000 - CAP);
    // Refusals cost the upstream nothing: sessions were opened for the admitted calls only (and
    // for the few that raced to their first question as the cap filled, plus the neighbour's).
    expect(legacy.sessionsIssued.length - issuedBefore).toBeLessThanOrEqual(CAP + WORKERS + 1);
    // A waiting call holds one upstream session and about two connections. Up to one call per
    // worker may be connecting when the cap fills (it is refused at its first question and let go).
    // Gateway, upstream and the client workers share this process, so every connection counts
    // twice (both ends). Bounded by the cap, not by the 1,000 calls (~4,000 descriptors before).
    expect(maxSessions - sessionsBefore).toBeLessThanOrEqual(CAP + WORKERS + 1);
    expect(maxFds - fdsBefore).toBeLessThanOrEqual(WORKERS * 2 + (CAP + WORKERS + 1) * 2 * 2 + 40);

    // After the idle timeout every abandoned call is declined upstream and released: sessions and
    // descriptors are back where they were, and the key is admitted again.
    await until(
      'every pending call to be released',
      () => Promise.resolve(liveSessions() <= sessionsBefore ? true : undefined),
      IDLE_MS + 15_000,
    );
    await until('descriptors to return', () =>
      Promise.resolve(openFds() <= fdsBefore + WORKERS * 2 + 10 ? true : undefined),
    );
    // The slots free at the idle timeout, counted from each flow's last activity (the end of the
    // loop at the latest); the upstream may drop its sessions sooner, so that is not the signal.
    const idleOver = loopStarted + loopMs + IDLE_MS;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, idleOver - Date.now())));
    let probe = 9999;
    const after = await until(
      'the key admitted again after the idle timeout',
      async () => {
        const answer = await ask(abuser.key, probe++);
        return resultOf(answer)?.['resultType'] === 'input_required' ? answer : undefined;
      },
      10_000,
      500,
    );
    expect(resultOf(after)?.['resultType']).toBe('input_required');
  }, 120_000);

  it('attacker:pending-flow-client-gone — calls whose clients go away before the first answer let their upstream sessions go at once', async () => {
    await until('earlier calls to be released', () =>
      Promise.resolve(liveSessions() <= 1 ? true : undefined),
    );
    const sessionsBefore = liveSessions();
    const clients = Array.from({ length: 30 }, () => new AbortController());
    const calls = clients.map((client, i) =>
      fetch(`${h.url}/mcp`, {
        method: 'POST',
        signal: client.signal,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 'legacy__slow_ask',
          authorization: `Bearer ${leaver.key}`,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: i,
          method: 'tools/call',
          params: { name: 'legacy__slow_ask', arguments: { ms: 4000 }, _meta: elicitMeta },
        }),
      }).catch((error: unknown) => error),
    );
    // Each call holds its own upstream session while the tool works (it has not asked yet).
    await until(
      'the calls to reach the upstream',
      () => Promise.resolve(liveSessions() >= sessionsBefore + 30 ? true : undefined),
      10_000,
      20,
    );
    const abandonedAt = Date.now();
    for (const client of clients) client.abort();
    await Promise.all(calls);
    // Released with the clients' requests: long before the tool would ask (4 s) and time out idle.
    await until(
      'the abandoned calls to be released',
      () => Promise.resolve(liveSessions() <= sessionsBefore ? true : undefined),
      1500,
      20,
    );
    expect(Date.now() - abandonedAt).toBeLessThan(1500);
    // Leaving is the client's doing: the source's pooled session is kept (no new one is opened).
    const issued = legacy.sessionsIssued.length;
    const echo = await mcpPost(h.url, leaver.key, {
      method: 'tools/call',
      params: { name: 'legacy__echo', arguments: { text: 'still here' }, _meta: MODERN_META },
    });
    expect(JSON.stringify(await echo.json())).toContain('still here');
    expect(legacy.sessionsIssued.length).toBe(issued);
  }, 30_000);
});
