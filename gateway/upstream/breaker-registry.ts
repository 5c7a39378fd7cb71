// Per-source circuit breakers (spec §3, D14, STYLE 9). Every upstream hop of a source — discovery
// and calls — runs through its breaker: failures of reachability count, answers from the upstream
// (including JSON-RPC errors and tool errors) do not. While open, calls fail at once with
// `upstream_circuit_open`, so one dead source never slows the others.
import CircuitBreaker from 'opossum';
import type { McpSourceConfig } from '../config/index.js';
import { GatewayError } from '../errors/index.js';
import { classifyUpstreamError } from './classify-upstream-error.js';

export type BreakerState = 'closed' | 'open' | 'half-open';

type Task = () => Promise<unknown>;

interface Entry {
  readonly fingerprint: string;
  readonly breaker: CircuitBreaker<[Task], unknown>;
}

/** Whether an error says the source is unhealthy (as opposed to the upstream answering "no"). */
export function countsAgainstSource(error: unknown): boolean {
  const code = classifyUpstreamError(error);
  return code === 'upstream_unreachable' || code === 'upstream_timeout';
}

export class BreakerRegistry {
  private readonly entries = new Map<string, Entry>();

  private entryFor(workspace: string, source: McpSourceConfig): Entry {
    const key = `${workspace}/${source.name}`;
    const fingerprint = JSON.stringify(source.breaker);
    const existing = this.entries.get(key);
    if (existing !== undefined && existing.fingerprint === fingerprint) return existing;
    existing?.breaker.shutdown();
    const breaker = new CircuitBreaker<[Task], unknown>((task: Task) => task(), {
      name: key,
      timeout: false,
      errorThresholdPercentage: source.breaker.failureThresholdPercent,
      volumeThreshold: source.breaker.minimumCalls,
      rollingCountTimeout: source.breaker.windowMs,
      rollingCountBuckets: 10,
      resetTimeout: source.breaker.resetTimeoutMs,
      errorFilter: (error: unknown) => !countsAgainstSource(error),
    });
    const entry = { fingerprint, breaker };
    this.entries.set(key, entry);
    return entry;
  }

  /** Runs one upstream hop of the source through its breaker. */
  async run<T>(workspace: string, source: McpSourceConfig, task: () => Promise<T>): Promise<T> {
    const { breaker } = this.entryFor(workspace, source);
    try {
      return (await breaker.fire(task)) as T;
    } catch (error) {
      if ((error as { code?: unknown }).code === 'EOPENBREAKER') {
        throw new GatewayError(
          'upstream_circuit_open',
          `Source ${source.name} is failing; its circuit breaker is open.`,
          { cause: error },
        );
      }
      throw error;
    }
  }

  state(workspace: string, sourceName: string): BreakerState {
    const breaker = this.entries.get(`${workspace}/${sourceName}`)?.breaker;
    if (breaker === undefined || breaker.closed) return 'closed';
    return breaker.halfOpen ? 'half-open' : 'open';
  }

  close(): void {
    for (const entry of this.entries.values()) entry.breaker.shutdown();
    this.entries.clear();
  }
}
