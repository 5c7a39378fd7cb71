// Per-source circuit breakers (spec §3, D14, STYLE 9). Every upstream hop of a source — discovery
// and calls — runs through its breaker: failures of reachability and of the protocol count (down,
// slow, 5xx, not MCP), answers about one request (4xx, JSON-RPC errors, tool errors) do not. While open, calls fail at once with
// `upstream_circuit_open`, so one dead source never slows the others.
import { mcpClientSdk } from './mcp-client-sdk.js';
import CircuitBreaker from 'opossum';
import type { McpSourceConfig } from '../config/index.js';
import { GatewayError } from '../errors/index.js';
import { classifyUpstreamError } from './classify-upstream-error.js';
import { findAnswerError, UpstreamHttpError, UpstreamProtocolError } from './upstream-answer-errors.js';
import { UpstreamRpcError } from './upstream-rpc-error.js';

export type BreakerState = 'closed' | 'open' | 'half-open';

type Task = () => Promise<unknown>;

interface Entry {
  readonly fingerprint: string;
  readonly breaker: CircuitBreaker<[Task], unknown>;
}

/** Whether an error says the source is unhealthy (as opposed to the upstream answering "no"):
 * unreachable, timed out, HTTP 5xx, or an answer that is not MCP. A 4xx, a JSON-RPC error, a tool
 * error and an answer over the size cap are answers about one request and do not count. */
export function countsAgainstSource(error: unknown): boolean {
  if (error instanceof UpstreamRpcError || error instanceof mcpClientSdk().ProtocolError) return false;
  const status = (error as { status?: unknown } | null)?.status;
  if (
    (error instanceof mcpClientSdk().SdkHttpError || error instanceof UpstreamHttpError) &&
    typeof status === 'number'
  )
    return status >= 500;
  const code = classifyUpstreamError(error);
  if (code === 'upstream_unreachable' || code === 'upstream_timeout') return true;
  return isNotMcp(error);
}

/** Only answers positively identified as not MCP count; an unknown error is not blamed on the source. */
function isNotMcp(error: unknown): boolean {
  if (findAnswerError(error) instanceof UpstreamProtocolError) return true;
  if (error instanceof SyntaxError) return true;
  const { SdkError, SdkErrorCode } = mcpClientSdk();
  return error instanceof SdkError && error.code === SdkErrorCode.InvalidResult;
}

/** A breaker config's fingerprint, computed once per config object (configs are immutable; a reload
 * makes new ones), not on every call (issue 45). */
const fingerprints = new WeakMap<McpSourceConfig['breaker'], string>();

function fingerprintOf(breaker: McpSourceConfig['breaker']): string {
  let fingerprint = fingerprints.get(breaker);
  if (fingerprint === undefined) {
    fingerprint = JSON.stringify(breaker);
    fingerprints.set(breaker, fingerprint);
  }
  return fingerprint;
}

export class BreakerRegistry {
  private readonly entries = new Map<string, Entry>();

  private entryFor(workspace: string, source: McpSourceConfig): Entry {
    const key = `${workspace}/${source.name}`;
    const fingerprint = fingerprintOf(source.breaker);
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

  /**
   * Runs a discovery hop (a list, a connect) of the source. An open breaker refuses it like a call
   * and its failures count, but its successes are not recorded while the breaker is closed: a
   * source whose lists work and whose calls all fail is unhealthy, and cheap list successes must
   * not dilute the failure rate of its calls. While half-open a discovery success closes it.
   */
  async runDiscovery<T>(workspace: string, source: McpSourceConfig, task: () => Promise<T>): Promise<T> {
    const { breaker } = this.entryFor(workspace, source);
    if (!breaker.closed) return this.run(workspace, source, task);
    try {
      return await task();
    } catch (error) {
      // Recorded by firing a task that fails with the same error, so the filter sees what happened.
      if (countsAgainstSource(error))
        await breaker
          .fire(() => Promise.reject(error instanceof Error ? error : new Error(String(error))))
          .catch(() => undefined);
      throw error;
    }
  }

  /** Every breaker and its state (for the metrics gauge). */
  states(): { workspace: string; source: string; state: BreakerState }[] {
    return [...this.entries.keys()].map((key) => {
      const [workspace = '', source = ''] = key.split('/');
      return { workspace, source, state: this.state(workspace, source) };
    });
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
