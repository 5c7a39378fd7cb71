// A bounded closed-loop load generator over the agent endpoints, for measuring requests failed and
// latency while gateway pods churn (issue 21). `concurrency` loops each send requests back to back on
// one keep-alive pool, cycling through REST `/agent/tools`, REST `/agent/search`, MCP `tools/list`
// and MCP `tools/call` by weight. A request fails when it throws (reset, refused, time-out), answers
// non-2xx, or answers a body the endpoint does not promise. Reasons are codes only, never bodies.
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';

export const LOAD_KINDS = ['rest-tools', 'rest-search', 'mcp-tools-list', 'mcp-tools-call'] as const;
export type LoadKind = (typeof LOAD_KINDS)[number];

/** Relative weights per kind (non-negative integers); a kind left out is not sent. */
export type LoadMix = Readonly<Partial<Record<LoadKind, number>>>;

export interface ToolCallSpec {
  readonly name: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  /** `Mcp-Param-*` headers the tool's `x-mcp-header` arguments need on the modern face. */
  readonly headers?: Readonly<Record<string, string>>;
}

export interface AgentLoadOptions {
  /** The gateway's URL; a path prefix (an ingress route) is kept. */
  readonly baseUrl: string;
  readonly key: string;
  readonly concurrency: number;
  /** Default: every kind weight 1 (`mcp-tools-call` only when `toolCall` is given). */
  readonly mix?: LoadMix;
  /** Each request, body included, is abandoned and counted as `timeout` after this long. */
  readonly requestTimeoutMs: number;
  readonly toolCall?: ToolCallSpec;
  /** The `/agent/search` query (default `gateway`). */
  readonly searchQuery?: string;
  /** A loop pauses this long after a failure, so a refused port is not hammered (default 50). */
  readonly pauseAfterFailureMs?: number;
  /** The loops end on their own after this long even if `stop()` is never called (default 10 min). */
  readonly maxDurationMs?: number;
  /** How many failures are kept in `firstFailures` (default 10). */
  readonly maxFailureSamples?: number;
}

export interface LatencySummary {
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  readonly max: number;
}

export interface KindCounts {
  readonly total: number;
  readonly ok: number;
  readonly failed: number;
}

export interface FailureSample {
  readonly kind: LoadKind;
  readonly reason: string;
  /** Milliseconds since the load started. */
  readonly atMs: number;
}

export interface LoadReport {
  readonly total: number;
  readonly ok: number;
  readonly failed: number;
  readonly failuresByReason: Readonly<Record<string, number>>;
  readonly firstFailures: readonly FailureSample[];
  /** Over every request, failed ones included; NaN when there were none. */
  readonly latencyMs: LatencySummary;
  readonly durationMs: number;
  readonly requestsPerSecond: number;
  readonly byKind: Readonly<Record<LoadKind, KindCounts>>;
}

export interface AgentLoad {
  /** Stops the loops (requests in flight finish, bounded by the time-out) and closes the pool. */
  stop(): Promise<LoadReport>;
  /** The report so far, while running. */
  snapshot(): LoadReport;
}

/** Nearest-rank percentile of ascending `sorted` (p in 0–100); NaN for no samples. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile ${p} is outside 0–100`);
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
}

export function summarizeLatencies(samples: readonly number[]): LatencySummary {
  // A typed array sorts numerically, unlike Array#sort's default string order.
  const sorted = Float64Array.from(samples).sort();
  return {
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    max: percentile(sorted, 100),
  };
}

/** One cycle of kinds by smooth weighted round-robin: {a: 2, b: 1} → a, b, a (spread, not bunched). */
export function mixSchedule(mix: LoadMix): LoadKind[] {
  const weights = LOAD_KINDS.map((kind) => [kind, mix[kind] ?? 0] as const).filter(([, w]) => w > 0);
  for (const [kind, weight] of weights) {
    if (!Number.isInteger(weight) || weight > 1000)
      throw new RangeError(`mix.${kind} must be an integer in 0–1000`);
  }
  const total = weights.reduce((sum, [, w]) => sum + w, 0);
  if (total === 0) throw new RangeError('mix sends nothing: give at least one kind a weight');
  const current = new Map<LoadKind, number>(weights.map(([kind]) => [kind, 0]));
  const schedule: LoadKind[] = [];
  for (let step = 0; step < total; step += 1) {
    let pick: LoadKind | undefined;
    for (const [kind, weight] of weights) {
      const value = (current.get(kind) ?? 0) + weight;
      current.set(kind, value);
      if (pick === undefined || value > (current.get(pick) ?? 0)) pick = kind;
    }
    const chosen = pick as LoadKind;
    current.set(chosen, (current.get(chosen) ?? 0) - total);
    schedule.push(chosen);
  }
  return schedule;
}

/** Collects outcomes and turns them into a report; the network part only feeds it. */
export class LoadRecorder {
  private readonly latencies: number[] = [];
  private readonly reasons = new Map<string, number>();
  private readonly samples: FailureSample[] = [];
  private readonly kinds = new Map<LoadKind, { total: number; ok: number; failed: number }>(
    LOAD_KINDS.map((kind) => [kind, { total: 0, ok: 0, failed: 0 }]),
  );

  constructor(private readonly maxFailureSamples = 10) {}

  /** `failure` is a reason code, or undefined for a request that succeeded. */
  record(kind: LoadKind, latencyMs: number, failure?: string, atMs = 0): void {
    this.latencies.push(latencyMs);
    const counts = this.kinds.get(kind) as { total: number; ok: number; failed: number };
    counts.total += 1;
    if (failure === undefined) {
      counts.ok += 1;
      return;
    }
    counts.failed += 1;
    this.reasons.set(failure, (this.reasons.get(failure) ?? 0) + 1);
    if (this.samples.length < this.maxFailureSamples) this.samples.push({ kind, reason: failure, atMs });
  }

  report(durationMs: number): LoadReport {
    const byKind = Object.fromEntries(
      LOAD_KINDS.map((kind) => [kind, { ...this.kinds.get(kind) }]),
    ) as Record<LoadKind, KindCounts>;
    const failed = [...this.reasons.values()].reduce((sum, n) => sum + n, 0);
    const total = this.latencies.length;
    return {
      total,
      ok: total - failed,
      failed,
      failuresByReason: Object.fromEntries(this.reasons),
      firstFailures: [...this.samples],
      latencyMs: summarizeLatencies(this.latencies),
      durationMs,
      requestsPerSecond: durationMs > 0 ? total / (durationMs / 1000) : 0,
      byKind,
    };
  }
}

/** A thrown request error as a code: the OS or undici code when there is one, `timeout` for ours. */
export function failureReason(error: unknown): string {
  const seen = new Set<unknown>();
  for (let current = error; current instanceof Object && !seen.has(current);) {
    seen.add(current);
    const { name, code, cause } = current as { name?: unknown; code?: unknown; cause?: unknown };
    // The only abort is the request time-out's signal (a TimeoutError, or undici's own abort).
    if (name === 'TimeoutError' || name === 'AbortError' || code === 'UND_ERR_ABORTED') return 'timeout';
    if (typeof code === 'string' && /^[A-Z0-9_]{1,40}$/.test(code)) return code;
    current = cause;
  }
  const name = (error as { name?: unknown } | null)?.name;
  return typeof name === 'string' && /^[A-Za-z]{1,40}$/.test(name) ? name : 'unknown_error';
}

/** Whether a 2xx body is what the endpoint promises; undefined when it is, else a reason code. */
export function judgeBody(
  kind: LoadKind,
  contentType: string,
  text: string,
  id: number | undefined,
): string | undefined {
  const message = contentType.startsWith('text/event-stream') ? lastSseMessage(text, id) : parseJson(text);
  if (typeof message !== 'object' || message === null) return 'invalid_body';
  const body = message as Record<string, unknown>;
  if (kind === 'rest-tools') return Array.isArray(body['tools']) ? undefined : 'invalid_body';
  if (kind === 'rest-search')
    return Array.isArray(body['results']) && typeof body['count'] === 'number' ? undefined : 'invalid_body';
  const error = body['error'] as { code?: unknown } | undefined;
  if (error !== undefined) return `jsonrpc_${typeof error.code === 'number' ? error.code : 'error'}`;
  const result = body['result'] as Record<string, unknown> | undefined;
  if (body['jsonrpc'] !== '2.0' || body['id'] !== id || typeof result !== 'object' || result === null)
    return 'invalid_body';
  const resultType = result['resultType'];
  if (resultType !== undefined && resultType !== 'complete') return 'result_not_complete';
  if (kind === 'mcp-tools-list') return Array.isArray(result['tools']) ? undefined : 'invalid_body';
  return result['isError'] === true ? 'tool_is_error' : undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The JSON-RPC response with our id in a request-scoped SSE stream (progress may come first). */
function lastSseMessage(text: string, id: number | undefined): unknown {
  const events = text.split(/\r?\n\r?\n/).map((event) =>
    event
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).replace(/^ /, ''))
      .join('\n'),
  );
  return events
    .map(parseJson)
    .filter((m): m is Record<string, unknown> => typeof m === 'object' && m !== null)
    .find((m) => m['id'] === id && ('result' in m || 'error' in m));
}

interface OutgoingRequest {
  readonly path: string;
  readonly method: 'GET' | 'POST';
  readonly headers: Record<string, string>;
  readonly body?: string;
  readonly id?: number;
}

const PROTOCOL_VERSION = '2026-07-28';

function buildRequest(kind: LoadKind, options: AgentLoadOptions, id: number): OutgoingRequest {
  const auth = { authorization: `Bearer ${options.key}` };
  if (kind === 'rest-tools')
    return { path: '/agent/tools', method: 'GET', headers: { ...auth, accept: 'application/json' } };
  if (kind === 'rest-search')
    return {
      path: '/agent/search',
      method: 'POST',
      headers: { ...auth, accept: 'application/json', 'content-type': 'application/json' },
      body: JSON.stringify({ query: options.searchQuery ?? 'gateway', limit: 5 }),
    };
  const call = kind === 'mcp-tools-call' ? options.toolCall : undefined;
  const method = call === undefined ? 'tools/list' : 'tools/call';
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
    'io.modelcontextprotocol/clientInfo': { name: 'agent-load', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const params = call === undefined ? { _meta } : { name: call.name, arguments: call.arguments, _meta };
  return {
    path: '/mcp',
    method: 'POST',
    id,
    headers: {
      ...auth,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': PROTOCOL_VERSION,
      'mcp-method': method,
      ...(call === undefined ? {} : { 'mcp-name': call.name, ...call.headers }),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
  };
}

/** Sends one request on `dispatcher`; undefined on success, else the failure reason. */
async function sendOne(
  dispatcher: Agent,
  kind: LoadKind,
  options: AgentLoadOptions,
  id: number,
): Promise<string | undefined> {
  const outgoing = buildRequest(kind, options, id);
  try {
    const response = await request(`${options.baseUrl.replace(/\/+$/, '')}${outgoing.path}`, {
      dispatcher,
      method: outgoing.method,
      headers: outgoing.headers,
      ...(outgoing.body === undefined ? {} : { body: outgoing.body }),
      signal: AbortSignal.timeout(options.requestTimeoutMs),
    });
    if (response.statusCode < 200 || response.statusCode > 299) {
      await response.body.dump().catch(() => undefined);
      return `http_${response.statusCode}`;
    }
    const text = await response.body.text();
    const contentType = response.headers['content-type'];
    return judgeBody(kind, typeof contentType === 'string' ? contentType : '', text, outgoing.id);
  } catch (error) {
    return failureReason(error);
  }
}

export function startAgentLoad(options: AgentLoadOptions): AgentLoad {
  if (!Number.isInteger(options.concurrency) || options.concurrency < 1 || options.concurrency > 256)
    throw new RangeError('concurrency must be an integer in 1–256');
  if (!(options.requestTimeoutMs > 0)) throw new RangeError('requestTimeoutMs must be positive');
  const mix = options.mix ?? {
    'rest-tools': 1,
    'rest-search': 1,
    'mcp-tools-list': 1,
    'mcp-tools-call': options.toolCall === undefined ? 0 : 1,
  };
  if ((mix['mcp-tools-call'] ?? 0) > 0 && options.toolCall === undefined)
    throw new RangeError('mix sends mcp-tools-call but no toolCall was given');
  const schedule = mixSchedule(mix);
  const recorder = new LoadRecorder(options.maxFailureSamples ?? 10);
  const dispatcher = new Agent({ connections: options.concurrency, pipelining: 1 });
  const halt = new AbortController();
  const started = performance.now();
  const deadline = started + (options.maxDurationMs ?? 600_000);
  let ended: number | undefined;
  let nextId = 0;

  const loop = async (index: number) => {
    // Offsetting each loop's place in the cycle interleaves the kinds across loops.
    for (let step = index; !halt.signal.aborted && performance.now() < deadline; step += 1) {
      const kind = schedule[step % schedule.length] as LoadKind;
      const sent = performance.now();
      const failure = await sendOne(dispatcher, kind, options, (nextId += 1));
      const done = performance.now();
      recorder.record(kind, done - sent, failure, done - started);
      if (failure !== undefined && !halt.signal.aborted)
        await sleep(options.pauseAfterFailureMs ?? 50, undefined, { signal: halt.signal }).catch(
          () => undefined,
        );
    }
  };
  // The pool closes when the loops end, by stop() or by maxDurationMs.
  const loops = Promise.all(Array.from({ length: options.concurrency }, (_, i) => loop(i))).then(async () => {
    ended = performance.now();
    await dispatcher.close();
  });
  let stopping: Promise<LoadReport> | undefined;
  return {
    snapshot: () => recorder.report((ended ?? performance.now()) - started),
    stop() {
      stopping ??= (async () => {
        halt.abort();
        await loops;
        return recorder.report((ended ?? performance.now()) - started);
      })();
      return stopping;
    },
  };
}

function ratio(value: number, baseline: number): number {
  if (baseline === 0) return value === 0 ? 1 : Number.POSITIVE_INFINITY;
  return value / baseline;
}

export interface LoadComparison {
  /** run ÷ baseline (1 = unchanged; Infinity when the baseline is 0 and the run is not). */
  readonly p50Ratio: number;
  readonly p95Ratio: number;
  readonly p99Ratio: number;
  readonly maxRatio: number;
  readonly requestsPerSecondRatio: number;
  /** Failed requests of the run minus those of the baseline. */
  readonly failedDelta: number;
  /** Failed ÷ total of the run (0 when it sent nothing). */
  readonly failureRate: number;
}

export function compareToBaseline(baseline: LoadReport, run: LoadReport): LoadComparison {
  return {
    p50Ratio: ratio(run.latencyMs.p50, baseline.latencyMs.p50),
    p95Ratio: ratio(run.latencyMs.p95, baseline.latencyMs.p95),
    p99Ratio: ratio(run.latencyMs.p99, baseline.latencyMs.p99),
    maxRatio: ratio(run.latencyMs.max, baseline.latencyMs.max),
    requestsPerSecondRatio: ratio(run.requestsPerSecond, baseline.requestsPerSecond),
    failedDelta: run.failed - baseline.failed,
    failureRate: run.total === 0 ? 0 : run.failed / run.total,
  };
}

const ms = (value: number) => (Number.isNaN(value) ? 'n/a' : value.toFixed(1));
const times = (value: number) => (Number.isFinite(value) ? `×${value.toFixed(2)}` : `×${value}`);

/** One line for test output; with `baseline`, latency and throughput ratios against it. */
export function formatLoadReport(label: string, report: LoadReport, baseline?: LoadReport): string {
  const reasons = Object.entries(report.failuresByReason)
    .sort((a, b) => b[1] - a[1])
    .map(([reason, n]) => `${reason}×${n}`)
    .join(' ');
  const kinds = LOAD_KINDS.filter((kind) => report.byKind[kind].total > 0)
    .map((kind) => `${kind} ${report.byKind[kind].ok}/${report.byKind[kind].total}`)
    .join(', ');
  const { p50, p95, p99, max } = report.latencyMs;
  let line =
    `${label}: ${report.total} req in ${(report.durationMs / 1000).toFixed(2)} s ` +
    `(${report.requestsPerSecond.toFixed(0)} req/s), ok ${report.ok}, failed ${report.failed}` +
    (reasons === '' ? '' : ` [${reasons}]`) +
    `; latency p50 ${ms(p50)} / p95 ${ms(p95)} / p99 ${ms(p99)} / max ${ms(max)} ms; ok/total ${kinds}`;
  if (baseline !== undefined) {
    const c = compareToBaseline(baseline, report);
    line += `; vs baseline p50 ${times(c.p50Ratio)} p99 ${times(c.p99Ratio)} req/s ${times(c.requestsPerSecondRatio)}`;
  }
  return line;
}
