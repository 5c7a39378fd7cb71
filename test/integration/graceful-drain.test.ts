// Issue 21: a gateway told to stop under a steady load of keep-alive agent calls fails none of them.
// Readiness goes 503 at once; every response from then on says `Connection: close`, so clients
// leave after their answer; new connections are still served for `drainDelayMs` (routers catch up);
// then the gateway stops listening, lets requests in flight (streams included) and connections end,
// and is done within `shutdownGraceMs`. A call that outlives the grace is answered `not_ready`, as
// the last event of its stream, never cut.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, Client, type Dispatcher } from 'undici';
import { startModernServer, type RunningModernServer } from '../fixtures/upstreams/modern-server.js';
import { failureReason, judgeBody, type LoadKind } from '../support/agent-load.js';
import { until } from '../support/until.js';
import { httpSource, keyRecord, newKey } from '../support/gateway-document.js';
import { MODERN_META, startWorkspace, fileHarness, type Harness } from '../support/gateway-harness.js';

const key = newKey();
let upstream: RunningModernServer;

beforeAll(async () => {
  upstream = await startModernServer();
});
afterAll(async () => {
  await upstream.close();
});

async function gatewayWith(server: Record<string, unknown>): Promise<Harness> {
  return startWorkspace(
    {
      mcpSources: [httpSource('up', upstream.url)],
      keys: [keyRecord(key)],
    },
    {
      server: { host: '127.0.0.1', port: 0, ...server },
    },
  );
}

interface Call {
  readonly path: string;
  readonly method: 'GET' | 'POST';
  readonly headers: Record<string, string>;
  readonly body?: string;
}

function agentCall(kind: 'rest-search' | 'mcp-tools-list', id: number): Call {
  const auth = { authorization: `Bearer ${key.key}` };
  if (kind === 'rest-search')
    return {
      path: '/agent/search',
      method: 'POST',
      headers: { ...auth, accept: 'application/json', 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'gateway', limit: 5 }),
    };
  return mcpCall(id, 'tools/list', { _meta: MODERN_META });
}

function mcpCall(id: number, method: string, params: Record<string, unknown>, name?: string): Call {
  return {
    path: '/mcp',
    method: 'POST',
    headers: {
      authorization: `Bearer ${key.key}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(name === undefined ? {} : { 'mcp-name': name }),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
  };
}

function slowCall(id: number, ms: number, steps: number, progressToken?: string): Call {
  const _meta = progressToken === undefined ? MODERN_META : { ...MODERN_META, progressToken };
  return mcpCall(id, 'tools/call', { _meta, name: 'up__slow', arguments: { ms, steps } }, 'up__slow');
}

interface Answer {
  readonly status: number;
  readonly connection: string | undefined;
  readonly contentType: string;
  readonly text: string;
}

async function send(dispatcher: Dispatcher, origin: string, call: Call): Promise<Answer> {
  const response = await dispatcher.request({
    origin,
    path: call.path,
    method: call.method,
    headers: call.headers,
    ...(call.body === undefined ? {} : { body: call.body }),
  });
  const text = await response.body.text();
  const header = (name: string) => {
    const value = response.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  };
  return {
    status: response.statusCode,
    connection: header('connection'),
    contentType: header('content-type') ?? '',
    text,
  };
}

/** The data of each complete SSE event, parsed. */
function sseMessages(text: string): Record<string, unknown>[] {
  return text
    .split('\n\n')
    .filter((block) => block.includes('data: '))
    .map((block) => JSON.parse(block.slice(block.indexOf('data: ') + 6)) as Record<string, unknown>);
}

interface Outcome {
  readonly sentAt: number;
  readonly connection: string | undefined;
  readonly failure: string | undefined;
}

describe('a gateway stopped under load', () => {
  const LOOPS = 4;
  const DRAIN_MS = 1500;
  const GRACE_MS = 6000;
  const h = fileHarness(() => gatewayWith({ drainDelayMs: DRAIN_MS, shutdownGraceMs: GRACE_MS }));

  it('ops:drain-zero-failures — readiness 503 first, Connection: close while new connections are still served, in-flight streams finish, zero failed requests, done within the grace', async () => {
    const origin = h.url;
    // The moment the load balancer stops sending new requests here: part-way through the drain.
    let stopAt = Number.POSITIVE_INFINITY;
    const routerGoneAt = () => stopAt + DRAIN_MS * 0.6;
    const outcomes: Outcome[] = [];
    const agents = Array.from({ length: LOOPS }, () => new Agent({ connections: 1, pipelining: 1 }));
    const connectsAfterStop = { count: 0 };
    for (const agent of agents)
      agent.on('connect', () => {
        if (performance.now() >= stopAt) connectsAfterStop.count += 1;
      });
    const loop = async (index: number, agent: Agent) => {
      for (let n = index; performance.now() < routerGoneAt(); n += LOOPS) {
        const kind: LoadKind = n % 2 === 0 ? 'rest-search' : 'mcp-tools-list';
        const sentAt = performance.now();
        try {
          const answer = await send(agent, origin, agentCall(kind, n));
          const failure =
            answer.status === 200
              ? judgeBody(kind, answer.contentType, answer.text, kind === 'rest-search' ? undefined : n)
              : `http_${answer.status}`;
          outcomes.push({ sentAt, connection: answer.connection, failure });
        } catch (error) {
          outcomes.push({ sentAt, connection: undefined, failure: failureReason(error) });
        }
      }
    };
    const loops = Promise.all(agents.map((agent, i) => loop(i, agent)));

    // A keep-alive connection used just before the stop and left idle (a pooled client's socket).
    const idle = new Client(origin, { pipelining: 1 });
    let idleConnects = 0;
    idle.on('connect', () => (idleConnects += 1));
    // A streamed tool call that runs past the end of the accepting phase.
    const streamClient = new Client(origin);
    const streamMs = DRAIN_MS + 1000;
    let streamDoneAt = 0;
    try {
      await until(
        'a steady load',
        () => Promise.resolve(outcomes.length >= 4 * LOOPS ? true : undefined),
        15_000,
        20,
      );
      const stream = send(streamClient, origin, slowCall(9001, streamMs, 5, 'drain')).then((answer) => {
        streamDoneAt = performance.now();
        return answer;
      });
      stream.catch(() => undefined); // awaited below; not unhandled if an assertion fails first
      expect((await send(idle, origin, agentCall('rest-search', 0))).connection).toBe('keep-alive');

      stopAt = performance.now();
      const stopping = h.gateway.stop();
      const stopped = stopping.then(() => performance.now());

      // Readiness is 503 at once, served on a new connection (the gateway still accepts).
      const readyClient = new Client(origin);
      const ready = await send(readyClient, origin, { path: '/readyz', method: 'GET', headers: {} });
      await readyClient.close();
      expect(ready.status).toBe(503);
      expect(ready.connection).toBe('close');

      // A brand-new connection in the middle of the drain is served, and told to close.
      await sleep(DRAIN_MS / 3);
      const fresh = new Client(origin);
      const late = await send(fresh, origin, agentCall('rest-search', 0));
      await fresh.close();
      expect(late.status).toBe(200);
      expect(late.connection).toBe('close');

      // The idle keep-alive socket is reused after listening stopped: still answered, then closed.
      await sleep(Math.max(0, stopAt + DRAIN_MS + 300 - performance.now()));
      const reused = await send(idle, origin, agentCall('mcp-tools-list', 7));
      expect(reused.status).toBe(200);
      expect(judgeBody('mcp-tools-list', reused.contentType, reused.text, 7)).toBeUndefined();
      expect(reused.connection).toBe('close');
      expect(idleConnects).toBe(1);

      await loops;
      const streamed = await stream;
      expect(streamed.contentType).toContain('text/event-stream');
      const last = sseMessages(streamed.text).at(-1) as { id?: number; result?: { resultType?: string } };
      expect(last.id).toBe(9001);
      expect(last.result?.resultType).toBe('complete');
      expect(streamDoneAt).toBeGreaterThan(stopAt + DRAIN_MS);

      const stoppedAt = await stopped;
      expect(stoppedAt - stopAt).toBeGreaterThanOrEqual(DRAIN_MS);
      expect(stoppedAt - stopAt).toBeLessThan(GRACE_MS);
      expect(outcomes.filter((o) => o.failure !== undefined)).toEqual([]);
      const before = outcomes.filter((o) => o.sentAt < stopAt);
      const during = outcomes.filter((o) => o.sentAt >= stopAt);
      expect(before.some((o) => o.connection === 'keep-alive')).toBe(true);
      expect(during.length).toBeGreaterThanOrEqual(2 * LOOPS);
      expect(during.filter((o) => o.connection !== 'close')).toEqual([]);
      // Each loop was told to close and came back on a new connection, which was served.
      expect(connectsAfterStop.count).toBeGreaterThanOrEqual(LOOPS);

      // Once stopped, nothing listens any more.
      const after = new Client(origin);
      await expect(send(after, origin, { path: '/healthz', method: 'GET', headers: {} })).rejects.toThrow();
      await after.destroy().catch(() => undefined);
    } finally {
      stopAt = Math.min(stopAt, performance.now());
      await loops.catch(() => undefined);
      await Promise.all([...agents, idle, streamClient].map((d) => d.destroy().catch(() => undefined)));
    }
  }, 30_000);
});

describe('a call that outlives the shutdown grace', () => {
  const DRAIN_MS = 300;
  const GRACE_MS = 3000;
  const h = fileHarness(() => gatewayWith({ drainDelayMs: DRAIN_MS, shutdownGraceMs: GRACE_MS }));

  it('ops:drain-cutoff-answers — calls still running as the grace runs out are answered not_ready (a stream gets it as its last event) and the upstream calls are cancelled', async () => {
    const origin = h.url;
    const clients = [new Client(origin), new Client(origin)];
    const [streamClient, jsonClient] = clients as [Client, Client];
    try {
      const runsBefore = upstream.slowRuns.length;
      const streamed = send(streamClient, origin, slowCall(1, 20_000, 40, 'cutoff'));
      const plain = send(jsonClient, origin, slowCall(2, 20_000, 40));
      // Awaited below; not unhandled if an assertion fails first.
      for (const pending of [streamed, plain]) pending.catch(() => undefined);
      // Both calls are running upstream, and the first one's stream has begun.
      const running = () => upstream.slowRuns.slice(runsBefore);
      const started = () => running().length === 2 && running().some((r) => r.progressSent > 0);
      await until('both calls to run upstream, one streaming', () =>
        Promise.resolve(started() ? true : undefined),
      );

      const stopAt = performance.now();
      await h.gateway.stop();
      const elapsed = performance.now() - stopAt;
      expect(elapsed).toBeLessThan(GRACE_MS);

      const stream = await streamed;
      expect(stream.status).toBe(200);
      expect(stream.contentType).toContain('text/event-stream');
      const messages = sseMessages(stream.text);
      expect(messages.some((m) => m['method'] === 'notifications/progress')).toBe(true);
      expect(messages.at(-1)).toMatchObject({ id: 1, error: { code: -31016, data: { code: 'not_ready' } } });

      const json = await plain;
      expect(json.status).toBe(503);
      expect(JSON.parse(json.text)).toMatchObject({
        id: 2,
        error: { code: -31016, data: { code: 'not_ready' } },
      });

      const cancelled = () => running().every((r) => r.outcome === 'cancelled');
      await until('the upstream calls to be cancelled', () =>
        Promise.resolve(cancelled() ? true : undefined),
      );
    } finally {
      await Promise.all(clients.map((c) => c.destroy().catch(() => undefined)));
    }
  }, 30_000);
});
