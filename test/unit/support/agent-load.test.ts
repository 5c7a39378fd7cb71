// The load generator's arithmetic and judgement (test/support/agent-load.ts, issue 21): percentiles,
// the report, the weighted mix, failure reasons as codes, and which 2xx bodies count as failures.
import { describe, expect, it } from 'vitest';
import {
  LoadRecorder,
  compareToBaseline,
  failureReason,
  formatLoadReport,
  judgeBody,
  mixSchedule,
  percentile,
  startAgentLoad,
  summarizeLatencies,
} from '../../support/agent-load.js';

describe('percentile', () => {
  it('load:percentile-nearest-rank — picks the nearest-rank sample of an ascending list', () => {
    const sorted = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(sorted, 50)).toBe(50);
    expect(percentile(sorted, 95)).toBe(95);
    expect(percentile(sorted, 99)).toBe(99);
    expect(percentile(sorted, 100)).toBe(100);
    expect(percentile(sorted, 0)).toBe(1);
    expect(percentile([1, 2, 3, 4], 50)).toBe(2);
    expect(percentile([1, 2, 3, 4], 51)).toBe(3);
    expect(percentile([7], 99)).toBe(7);
  });

  it('load:percentile-edges — NaN without samples; p outside 0–100 is refused', () => {
    expect(percentile([], 50)).toBeNaN();
    expect(() => percentile([1], 101)).toThrow(RangeError);
    expect(() => percentile([1], -1)).toThrow(RangeError);
    expect(() => percentile([1], Number.NaN)).toThrow(RangeError);
  });

  it('load:latency-summary — sorts numerically (not as strings) before taking percentiles', () => {
    const samples = [100, 9, 20, 3, 1000, ...Array.from({ length: 95 }, () => 5)];
    expect(summarizeLatencies(samples)).toEqual({ p50: 5, p95: 5, p99: 100, max: 1000 });
    expect(summarizeLatencies([])).toEqual({ p50: NaN, p95: NaN, p99: NaN, max: NaN });
  });
});

describe('LoadRecorder', () => {
  it('load:report-counts — totals, per-kind counts, reasons, first failures and rate', () => {
    const recorder = new LoadRecorder(2);
    recorder.record('rest-tools', 10);
    recorder.record('rest-tools', 20, 'ECONNREFUSED', 100);
    recorder.record('mcp-tools-list', 30);
    recorder.record('mcp-tools-call', 40, 'http_503', 200);
    recorder.record('mcp-tools-call', 50, 'ECONNREFUSED', 300);
    const report = recorder.report(2000);
    expect(report).toMatchObject({ total: 5, ok: 2, failed: 3, durationMs: 2000, requestsPerSecond: 2.5 });
    expect(report.failuresByReason).toEqual({ ECONNREFUSED: 2, http_503: 1 });
    expect(report.firstFailures).toEqual([
      { kind: 'rest-tools', reason: 'ECONNREFUSED', atMs: 100 },
      { kind: 'mcp-tools-call', reason: 'http_503', atMs: 200 },
    ]);
    expect(report.byKind).toEqual({
      'rest-tools': { total: 2, ok: 1, failed: 1 },
      'rest-search': { total: 0, ok: 0, failed: 0 },
      'mcp-tools-list': { total: 1, ok: 1, failed: 0 },
      'mcp-tools-call': { total: 2, ok: 0, failed: 2 },
    });
    // Latency covers failed requests too.
    expect(report.latencyMs).toEqual({ p50: 30, p95: 50, p99: 50, max: 50 });
  });

  it('load:report-snapshot-isolated — a report does not change when more is recorded', () => {
    const recorder = new LoadRecorder();
    recorder.record('rest-search', 1, 'timeout');
    const first = recorder.report(1000);
    recorder.record('rest-search', 2, 'timeout');
    expect(first.byKind['rest-search']).toEqual({ total: 1, ok: 0, failed: 1 });
    expect(first.failuresByReason).toEqual({ timeout: 1 });
    expect(recorder.report(0).requestsPerSecond).toBe(0);
  });
});

describe('baseline comparison and formatting', () => {
  const base = () => {
    const recorder = new LoadRecorder();
    for (let i = 1; i <= 100; i += 1) recorder.record('rest-tools', i);
    return recorder.report(1000);
  };

  it('load:compare-baseline — ratios of latency and throughput, failed delta and rate', () => {
    const slow = new LoadRecorder();
    for (let i = 1; i <= 100; i += 1) slow.record('rest-tools', i * 2, i <= 5 ? 'ECONNRESET' : undefined);
    const comparison = compareToBaseline(base(), slow.report(2000));
    expect(comparison).toEqual({
      p50Ratio: 2,
      p95Ratio: 2,
      p99Ratio: 2,
      maxRatio: 2,
      requestsPerSecondRatio: 0.5,
      failedDelta: 5,
      failureRate: 0.05,
    });
    const zero = new LoadRecorder();
    zero.record('rest-tools', 0);
    expect(compareToBaseline(zero.report(1), zero.report(1)).p99Ratio).toBe(1);
    expect(compareToBaseline(zero.report(1), base()).p99Ratio).toBe(Infinity);
    expect(compareToBaseline(base(), new LoadRecorder().report(0)).failureRate).toBe(0);
  });

  it('load:format-one-line — one line with counts, reasons, percentiles, kinds and baseline ratios', () => {
    const recorder = new LoadRecorder();
    recorder.record('rest-tools', 10);
    recorder.record('mcp-tools-list', 30, 'http_503');
    const line = formatLoadReport('churn', recorder.report(2000), base());
    expect(line).not.toContain('\n');
    expect(line).toBe(
      'churn: 2 req in 2.00 s (1 req/s), ok 1, failed 1 [http_503×1]; latency p50 10.0 / p95 30.0 / ' +
        'p99 30.0 / max 30.0 ms; ok/total rest-tools 1/1, mcp-tools-list 0/1; ' +
        'vs baseline p50 ×0.20 p99 ×0.30 req/s ×0.01',
    );
    expect(formatLoadReport('empty', new LoadRecorder().report(0))).toContain('p50 n/a');
  });
});

describe('mixSchedule', () => {
  it('load:mix-weighted — spreads kinds by weight over one cycle', () => {
    expect(
      mixSchedule({ 'rest-tools': 1, 'rest-search': 1, 'mcp-tools-list': 1, 'mcp-tools-call': 1 }),
    ).toEqual(['rest-tools', 'rest-search', 'mcp-tools-list', 'mcp-tools-call']);
    expect(mixSchedule({ 'rest-tools': 2, 'mcp-tools-list': 1 })).toEqual([
      'rest-tools',
      'mcp-tools-list',
      'rest-tools',
    ]);
    const schedule = mixSchedule({ 'rest-search': 3, 'mcp-tools-call': 1, 'rest-tools': 0 });
    expect(schedule.filter((k) => k === 'rest-search')).toHaveLength(3);
    expect(schedule).not.toContain('rest-tools');
  });

  it('load:mix-invalid — an empty, fractional or call-without-tool mix is refused up front', () => {
    expect(() => mixSchedule({})).toThrow(/sends nothing/);
    expect(() => mixSchedule({ 'rest-tools': 1.5 })).toThrow(RangeError);
    expect(() =>
      startAgentLoad({
        baseUrl: 'http://127.0.0.1:9',
        key: 'k',
        concurrency: 1,
        requestTimeoutMs: 100,
        mix: { 'mcp-tools-call': 1 },
      }),
    ).toThrow(/no toolCall/);
    expect(() =>
      startAgentLoad({ baseUrl: 'http://127.0.0.1:9', key: 'k', concurrency: 0, requestTimeoutMs: 100 }),
    ).toThrow(/concurrency/);
  });
});

describe('failure judgement', () => {
  it('load:reason-codes — thrown errors become codes, never messages', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9 secret'), {
      code: 'ECONNREFUSED',
    });
    expect(failureReason(refused)).toBe('ECONNREFUSED');
    expect(failureReason(new TypeError('fetch failed', { cause: refused }))).toBe('ECONNREFUSED');
    expect(failureReason(new DOMException('The operation timed out.', 'TimeoutError'))).toBe('timeout');
    expect(failureReason(Object.assign(new Error('x'), { code: 'UND_ERR_SOCKET' }))).toBe('UND_ERR_SOCKET');
    expect(failureReason(Object.assign(new Error('x'), { code: 'not a code!' }))).toBe('Error');
    expect(failureReason('a string')).toBe('unknown_error');
    const looped: { cause?: unknown } = {};
    looped.cause = looped;
    expect(failureReason(looped)).toBe('unknown_error');
  });

  it('load:body-promises — REST bodies need their fields; JSON-RPC errors and missing results fail', () => {
    const json = 'application/json; charset=utf-8';
    expect(judgeBody('rest-tools', json, '{"tools":[]}', undefined)).toBeUndefined();
    expect(judgeBody('rest-tools', json, 'tools[0]:', undefined)).toBe('invalid_body');
    expect(judgeBody('rest-search', json, '{"query":"q","count":0,"results":[]}', undefined)).toBeUndefined();
    expect(judgeBody('rest-search', json, '{"results":[]}', undefined)).toBe('invalid_body');
    const rpc = (body: Record<string, unknown>) => JSON.stringify({ jsonrpc: '2.0', id: 7, ...body });
    expect(judgeBody('mcp-tools-list', json, rpc({ result: { tools: [] } }), 7)).toBeUndefined();
    expect(judgeBody('mcp-tools-list', json, rpc({ result: { tools: [] } }), 8)).toBe('invalid_body');
    expect(judgeBody('mcp-tools-list', json, rpc({ result: {} }), 7)).toBe('invalid_body');
    expect(judgeBody('mcp-tools-list', json, rpc({}), 7)).toBe('invalid_body');
    expect(judgeBody('mcp-tools-call', json, rpc({ error: { code: -32602, message: 'm' } }), 7)).toBe(
      'jsonrpc_-32602',
    );
    expect(judgeBody('mcp-tools-call', json, rpc({ result: { content: [], isError: true } }), 7)).toBe(
      'tool_is_error',
    );
    expect(
      judgeBody(
        'mcp-tools-call',
        json,
        rpc({ result: { resultType: 'input_required', inputRequests: {} } }),
        7,
      ),
    ).toBe('result_not_complete');
    expect(
      judgeBody('mcp-tools-call', json, rpc({ result: { resultType: 'complete', content: [] } }), 7),
    ).toBe(undefined);
  });

  it('load:body-sse — the response with our id is found after progress events in a stream', () => {
    const progress = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: {} });
    const answer = JSON.stringify({ jsonrpc: '2.0', id: 3, result: { content: [] } });
    const stream = `event: message\ndata: ${progress}\n\nevent: message\ndata: ${answer}\n\n`;
    expect(judgeBody('mcp-tools-call', 'text/event-stream', stream, 3)).toBeUndefined();
    expect(judgeBody('mcp-tools-call', 'text/event-stream', `data: ${progress}\n\n`, 3)).toBe('invalid_body');
  });
});
