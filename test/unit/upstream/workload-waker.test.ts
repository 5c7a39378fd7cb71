// Scale to zero, the gateway's half (issue 40 item 5, D25 and D10), over real sockets: a source whose port
// refuses connections (its workload sleeps) is woken through an operator twin (a real HTTP server
// that starts the upstream when asked) and the request is sent again; reports are throttled; one
// wake serves concurrent requests; a wake that times out or is refused fails in fixed words with the
// right catalogue code; an upstream that answers (even with an error) is never woken or resent.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { classifyUpstreamError, describeUpstreamFailure } from '../../../gateway/upstream/index.js';
import type { TokenSource } from '../../../gateway/upstream/token-source.js';
import { runAsBackground } from '../../../gateway/upstream/background-work.js';
import {
  isRefusedConnection,
  WorkloadWaker,
  WorkloadWakeError,
} from '../../../gateway/upstream/workload-waker.js';
import { freePort } from '../../infra/free-port.js';

const TOKEN = 'workload-token-value';
const credentials: TokenSource = {
  headers: () => Promise.resolve({ authorization: `Bearer ${TOKEN}` }),
  refused: () => false,
};

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map((s) => {
      s.closeAllConnections();
      return new Promise((resolve) => s.close(resolve));
    }),
  );
});

function listen(server: Server, port = 0): Promise<number> {
  servers.push(server);
  return new Promise((resolve) =>
    server.listen(port, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
  );
}

/** The upstream: answers every request with its count; not listening until started. */
function upstream(status = 200) {
  let calls = 0;
  const server = createServer((request, response) => {
    request.resume();
    calls += 1;
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ calls }));
  });
  return { server, calls: () => calls };
}

interface Report {
  readonly wait: boolean;
  readonly authorization: string | undefined;
}

/** The operator twin: records each report; on a wait it runs `onWake` and answers `status`. */
async function operator(onWake: () => Promise<void>, status = 200) {
  const reports: Report[] = [];
  const server = createServer((request: IncomingMessage, response) => {
    request.resume();
    const wait = (request.url ?? '').endsWith('?wait=1');
    reports.push({ wait, authorization: request.headers.authorization });
    void (wait ? onWake() : Promise.resolve()).then(() => {
      response.writeHead(wait ? status : 200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ ready: status === 200 }));
    });
  });
  const port = await listen(server);
  return { url: `http://127.0.0.1:${port}/wake/tenant-a/fetch`, reports };
}

describe('WorkloadWaker', () => {
  it('upstream:wake-on-refused — a refused connection wakes the workload once, and the request is answered after it', async () => {
    const port = await freePort();
    const up = upstream();
    const op = await operator(async () => {
      // The pod starts a little after the wake is asked for.
      await new Promise((resolve) => setTimeout(resolve, 300));
      await listen(up.server, port);
    });
    const waker = new WorkloadWaker({ url: op.url, timeoutMs: 10_000, touchIntervalMs: 30_000 });
    const send = waker.wrapFetch(fetch, credentials);
    const answers = await Promise.all(
      [1, 2, 3].map(() =>
        send(`http://127.0.0.1:${port}/mcp`, { method: 'POST', body: '{"jsonrpc":"2.0"}' }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(up.calls()).toBe(3);
    // One report (throttled) and one wake for three concurrent requests, each with the source token.
    expect(op.reports.filter((r) => r.wait)).toHaveLength(1);
    expect(op.reports.filter((r) => !r.wait)).toHaveLength(1);
    expect(new Set(op.reports.map((r) => r.authorization))).toEqual(new Set([`Bearer ${TOKEN}`]));
  });

  it('upstream:wake-touch-throttled — calls are reported at most once per interval, without waiting', async () => {
    const up = upstream();
    const port = await listen(up.server);
    const op = await operator(() => Promise.resolve());
    let now = 1_000_000;
    const waker = new WorkloadWaker(
      { url: op.url, timeoutMs: 10_000, touchIntervalMs: 15_000 },
      { now: () => now },
    );
    const send = waker.wrapFetch(fetch, credentials);
    for (let i = 0; i < 5; i += 1) await send(`http://127.0.0.1:${port}/mcp`, { method: 'POST', body: '{}' });
    now += 15_000;
    await send(`http://127.0.0.1:${port}/mcp`, { method: 'POST', body: '{}' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(op.reports).toEqual([
      { wait: false, authorization: `Bearer ${TOKEN}` },
      { wait: false, authorization: `Bearer ${TOKEN}` },
    ]);
    expect(up.calls()).toBe(6);
  });

  it('upstream:wake-no-resend-when-answered — an upstream that answers, even 503, is neither woken nor sent twice', async () => {
    const up = upstream(503);
    const port = await listen(up.server);
    const op = await operator(() => Promise.resolve());
    const waker = new WorkloadWaker({ url: op.url, timeoutMs: 10_000, touchIntervalMs: 30_000 });
    const answer = await waker.wrapFetch(fetch, credentials)(`http://127.0.0.1:${port}/mcp`, {
      method: 'POST',
      body: '{}',
    });
    expect(answer.status).toBe(503);
    expect(up.calls()).toBe(1);
    expect(op.reports.filter((r) => r.wait)).toEqual([]);
  });

  it('upstream:wake-timeout — a workload that does not get Ready in time fails as upstream_timeout in fixed words', async () => {
    const port = await freePort();
    const op = await operator(() => Promise.resolve(), 504);
    const waker = new WorkloadWaker({ url: op.url, timeoutMs: 2000, touchIntervalMs: 30_000 });
    const error = await waker
      .wrapFetch(fetch, credentials)(`http://127.0.0.1:${port}/mcp`, { method: 'POST', body: '{}' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkloadWakeError);
    expect((error as WorkloadWakeError).code).toBe('AGW_WAKE_TIMEOUT');
    expect(classifyUpstreamError(error)).toBe('upstream_timeout');
    expect(describeUpstreamFailure(error, 'upstream_timeout')).toBe('no answer within the time-out');
    expect(describeUpstreamFailure(error, 'upstream_unreachable')).toBe(
      'scaled to zero, not ready within its wake time-out',
    );
    expect((error as Error).message).not.toContain('127.0.0.1');
  });

  it('upstream:wake-refused — an operator that refuses (401) or is unreachable fails as upstream_unreachable, without the URL', async () => {
    const port = await freePort();
    const op = await operator(() => Promise.resolve(), 401);
    const refused = await new WorkloadWaker({ url: op.url, timeoutMs: 2000, touchIntervalMs: 30_000 })
      .wrapFetch(fetch, credentials)(`http://127.0.0.1:${port}/mcp`, { method: 'POST', body: '{}' })
      .catch((e: unknown) => e);
    expect((refused as WorkloadWakeError).code).toBe('AGW_WAKE_REFUSED');
    expect(classifyUpstreamError(refused)).toBe('upstream_unreachable');
    const nowhere = await freePort();
    const unreachable = await new WorkloadWaker({
      url: `http://127.0.0.1:${nowhere}/wake/tenant-a/fetch`,
      timeoutMs: 2000,
      touchIntervalMs: 30_000,
    })
      .wrapFetch(fetch, credentials)(`http://127.0.0.1:${port}/mcp`, { method: 'POST', body: '{}' })
      .catch((e: unknown) => e);
    expect((unreachable as WorkloadWakeError).code).toBe('AGW_WAKE_REFUSED');
    expect((unreachable as Error).message).not.toContain(String(nowhere));
    expect(classifyUpstreamError(unreachable)).toBe('upstream_unreachable');
  });

  it('upstream:wake-abort — a caller that gives up stops waiting at once', async () => {
    const port = await freePort();
    const op = await operator(() => new Promise((resolve) => setTimeout(resolve, 5000)));
    const waker = new WorkloadWaker({ url: op.url, timeoutMs: 10_000, touchIntervalMs: 30_000 });
    const started = Date.now();
    const error = await waker
      .wrapFetch(fetch, credentials)(`http://127.0.0.1:${port}/mcp`, {
        method: 'POST',
        body: '{}',
        signal: AbortSignal.timeout(300),
      })
      .catch((e: unknown) => e);
    expect((error as Error).name).toBe('TimeoutError');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('upstream:wake-not-for-probes — a background probe of a sleeping source is refused as it is: no wake, no report', async () => {
    const port = await freePort();
    const op = await operator(() => Promise.resolve());
    const waker = new WorkloadWaker({ url: op.url, timeoutMs: 10_000, touchIntervalMs: 30_000 });
    const error = await runAsBackground(() =>
      waker.wrapFetch(fetch, credentials)(`http://127.0.0.1:${port}/mcp`, { method: 'POST', body: '{}' }),
    ).catch((e: unknown) => e);
    expect(isRefusedConnection(error)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(op.reports).toEqual([]);
  });
});
