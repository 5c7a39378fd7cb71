// A small closed-loop load generator over keep-alive HTTP: N workers each send requests back to back
// for a fixed duration and record latencies. No timing is asserted anywhere; numbers are printed.
import { Agent, request } from 'undici';

export interface LoadResult {
  readonly label: string;
  readonly concurrency: number;
  readonly requests: number;
  readonly errors: number;
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

export async function runLoad(
  label: string,
  url: string,
  options: {
    concurrency: number;
    durationMs: number;
    headers?: Record<string, string>;
    method?: 'GET' | 'POST';
    /** The body, or a function of the request's sequence number (e.g. for unique JSON-RPC ids). */
    body?: string | ((sequence: number) => string);
    /** Headers per request (e.g. a different key each time), over `headers`. */
    headersFor?: (sequence: number) => Record<string, string>;
  },
): Promise<LoadResult> {
  const dispatcher = new Agent({ connections: options.concurrency, pipelining: 1 });
  const latencies: number[] = [];
  let errors = 0;
  let sequence = 0;
  const body = options.body;
  const end = performance.now() + options.durationMs;
  const worker = async () => {
    while (performance.now() < end) {
      const start = performance.now();
      const current = (sequence += 1);
      try {
        const response = await request(url, {
          dispatcher,
          method: options.method ?? 'GET',
          headers: { ...options.headers, ...options.headersFor?.(current) },
          ...(body === undefined ? {} : { body: typeof body === 'string' ? body : body(current) }),
        });
        await response.body.arrayBuffer();
        if (response.statusCode >= 400) errors += 1;
      } catch {
        errors += 1;
      }
      latencies.push(performance.now() - start);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  const elapsed = performance.now() - started;
  await dispatcher.close();
  latencies.sort((a, b) => a - b);
  return {
    label,
    concurrency: options.concurrency,
    requests: latencies.length,
    errors,
    rps: (latencies.length / elapsed) * 1000,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
  };
}

export function formatResult(r: LoadResult): string {
  return `${r.label.padEnd(40)} c=${String(r.concurrency).padStart(2)}  ${r.rps.toFixed(0).padStart(7)} req/s  p50 ${r.p50Ms.toFixed(2).padStart(7)} ms  p99 ${r.p99Ms.toFixed(2).padStart(7)} ms  errors ${r.errors}`;
}
