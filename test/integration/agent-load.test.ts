// The churn tests' load generator (test/support/agent-load.ts, issue 21) against a real embedded
// gateway with a real 2026-07-28 upstream and a files data source: a steady run fails nothing and
// exercises every kind; a gateway stopped mid-run shows up as failures with their reason codes.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModernServer, type RunningModernServer } from '../fixtures/upstreams/modern-server.js';
import { formatLoadReport, LOAD_KINDS, startAgentLoad, type LoadReport } from '../support/agent-load.js';
import { httpSource, keyRecord, newKey } from '../support/gateway-document.js';
import { get, startWorkspace, fileHarness, type Harness } from '../support/gateway-harness.js';
import { until } from '../support/until.js';

const reader = newKey();
const toolCall = { name: 'modern__echo', arguments: { text: 'load' } };
let modern: RunningModernServer;
let docs: string;

beforeAll(async () => {
  modern = await startModernServer();
  docs = await mkdtemp(join(tmpdir(), 'agw-load-docs-'));
  await writeFile(
    join(docs, 'gateway.md'),
    '# Gateway\n\nThe gateway answers agents over REST and MCP while its pods are replaced.\n',
  );
});
afterAll(async () => {
  await modern.close();
  await rm(docs, { recursive: true, force: true });
});

/** A gateway whose workspace has the modern upstream and the docs, once both are ready. */
async function startLoadedGateway(): Promise<Harness> {
  const h = await startWorkspace({
    name: 'load',
    mcpSources: [httpSource('modern', modern.url)],
    dataSources: [{ name: 'docs', type: 'files', path: docs }],
    keys: [keyRecord(reader)],
  });
  await until('sources ready', async () => {
    const body = (await (await get(`${h.url}/agent/sources?response_format=json`, reader.key)).json()) as {
      sources: { status: string }[];
    };
    return body.sources.length === 2 && body.sources.every((s) => s.status === 'ready') ? true : undefined;
  });
  return h;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Four agents against the gateway with the reader key, calling modern__echo among the rest. */
const loadOn = (h: Harness, options: { requestTimeoutMs: number; pauseAfterFailureMs?: number }) =>
  startAgentLoad({ baseUrl: h.url, key: reader.key, concurrency: 4, toolCall, ...options });

describe('agent load generator', () => {
  const h = fileHarness(startLoadedGateway);

  it('load:steady-run — concurrency 4 for 2 s: requests succeed, none fail, every kind is sent', async () => {
    const load = loadOn(h, { requestTimeoutMs: 5000 });
    await sleep(2000);
    const running = load.snapshot();
    const report = await load.stop();
    console.log(formatLoadReport('steady', report));
    expect(running.total).toBeGreaterThan(0);
    expect(report.total).toBeGreaterThanOrEqual(running.total);
    expect(report.failuresByReason, formatLoadReport('steady', report)).toEqual({});
    expect(report.failed).toBe(0);
    expect(report.ok).toBe(report.total);
    for (const kind of LOAD_KINDS) {
      expect(report.byKind[kind].total, kind).toBeGreaterThan(0);
      expect(report.byKind[kind].ok, kind).toBe(report.byKind[kind].total);
    }
    expect(report.durationMs).toBeGreaterThanOrEqual(2000);
    expect(report.latencyMs.p50).toBeGreaterThan(0);
    expect(report.latencyMs.p50).toBeLessThanOrEqual(report.latencyMs.p99);
    expect(report.latencyMs.p99).toBeLessThanOrEqual(report.latencyMs.max);
    // The upstream saw the calls, so tools/call really went through.
    const upstreamCalls = modern.log.filter((e) => e.rpcMethod === 'tools/call' && e.name === 'echo');
    expect(upstreamCalls.length).toBeGreaterThan(0);
    // Stopped is stopped: the report no longer grows.
    await sleep(100);
    expect(load.snapshot().total).toBe(report.total);
    expect(await load.stop()).toBe(report);
  });
});

describe('agent load generator across a stopped gateway', () => {
  const h = fileHarness(startLoadedGateway);

  it('load:counts-failures — the gateway stopped mid-run: failures counted with codes, never the key', async () => {
    const load = loadOn(h, { requestTimeoutMs: 2000, pauseAfterFailureMs: 20 });
    let report: LoadReport;
    try {
      await until(
        'some requests answered',
        () => Promise.resolve(load.snapshot().ok > 20 || undefined),
        10_000,
        20,
      );
      await h.stop();
      await sleep(500);
    } finally {
      report = await load.stop();
    }
    console.log(formatLoadReport('gateway stopped', report));
    expect(report.ok).toBeGreaterThan(20);
    expect(report.failed).toBeGreaterThan(0);
    expect(report.total).toBe(report.ok + report.failed);
    const reasons = Object.keys(report.failuresByReason);
    expect(reasons.length).toBeGreaterThan(0);
    for (const reason of reasons) expect(reason).toMatch(/^(E[A-Z]+|UND_ERR_[A-Z_]+|http_\d{3}|timeout)$/);
    expect(Object.values(report.failuresByReason).reduce((a, b) => a + b, 0)).toBe(report.failed);
    expect(report.firstFailures.length).toBeGreaterThan(0);
    expect(report.firstFailures.length).toBeLessThanOrEqual(10);
    for (const sample of report.firstFailures) {
      expect(reasons).toContain(sample.reason);
      expect(LOAD_KINDS).toContain(sample.kind);
    }
    expect(JSON.stringify(report)).not.toContain(reader.key);
    expect(formatLoadReport('gateway stopped', report)).not.toContain(reader.key);
  });
});

describe('agent load generator against a peer that never answers', () => {
  it('load:timeout-bounded — each request is abandoned at its time-out and counted; stop() waits no longer', async () => {
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    try {
      const load = startAgentLoad({
        baseUrl: `http://127.0.0.1:${port}`,
        key: reader.key,
        concurrency: 2,
        requestTimeoutMs: 300,
        pauseAfterFailureMs: 0,
      });
      await sleep(700);
      const stopping = performance.now();
      const report = await load.stop();
      expect(performance.now() - stopping).toBeLessThan(2000);
      console.log(formatLoadReport('silent peer', report));
      expect(report.ok).toBe(0);
      expect(report.failuresByReason).toEqual({ timeout: report.failed });
      expect(report.failed).toBeGreaterThanOrEqual(4);
      expect(report.latencyMs.p50).toBeGreaterThanOrEqual(290);
      expect(report.latencyMs.max).toBeLessThan(2000);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
