// What a failed or a good listing means for its source (issue 37 item 12, D14): the status
// /agent/sources shows, the pooled connection dropped after a failure, and, when the failure is the
// source's own (not the caller's), the failing state with its background probe. Entering and leaving
// that state are logged once each (warn, then info), never once per request.
import type { GatewayConfig, McpSourceConfig } from '../config/index.js';
import { catalogueEntry } from '../errors/index.js';
import type { Logger } from '../telemetry/logger.js';
import { count } from '../telemetry/metrics.js';
import {
  classifyUpstreamError,
  countsAgainstSource,
  isPerCaller,
  type UpstreamPool,
} from '../upstream/index.js';
import { sourceCacheKey } from './cache-key.js';
import { describeListFailure } from './list-failure.js';
import { SourceProber, type ProbeTarget } from './source-prober.js';
import type { SourceState, SourceStatusRegistry } from './source-status.js';

export interface SourceFailuresDeps {
  readonly pool: UpstreamPool;
  readonly statuses: SourceStatusRegistry;
  readonly logger: Logger;
  readonly now?: () => number;
  readonly probe: (target: ProbeTarget) => Promise<void>;
}

export class SourceFailures {
  private readonly prober: SourceProber;

  constructor(private readonly deps: SourceFailuresDeps) {
    // The probe counter's closed label set exists from the start at 0 (tool-catalog.ts counts the
    // probes): a series that first appears when some source fails would look, to anyone watching
    // for new series, like input growing the metrics (attacker:metrics-cardinality).
    for (const result of ['recovered', 'failed']) count('agw.discovery.probes', { result }, 0);
    this.prober = new SourceProber({
      probe: deps.probe,
      ...(deps.now === undefined ? {} : { now: deps.now }),
    });
  }

  isFailing(key: string): boolean {
    return this.prober.isFailing(key);
  }

  /** The source's last known state, with its probe while it is failing. */
  state(workspace: string, source: McpSourceConfig): SourceState {
    const state = this.deps.statuses.get(workspace, source.name);
    const failing = this.prober.failing(sourceCacheKey(workspace, source));
    return failing === undefined ? state : { ...state, failing };
  }

  failingCode(workspace: string, source: McpSourceConfig): SourceState['error'] {
    if (!this.prober.isFailing(sourceCacheKey(workspace, source))) return undefined;
    return this.deps.statuses.get(workspace, source.name).error;
  }

  failingSources(): { workspace: string; source: string }[] {
    return this.prober.keys().map((key) => {
      const [workspace = '', source = ''] = key.split('/');
      return { workspace, source };
    });
  }

  retain(config: GatewayConfig): void {
    const wanted = new Set<string>();
    for (const workspace of config.workspaces)
      for (const source of workspace.mcpSources) wanted.add(sourceCacheKey(workspace.name, source));
    this.prober.retain(wanted);
  }

  close(): void {
    this.prober.close();
  }

  /** A listing failed: the status says why; a failure of the source itself makes it failing. */
  failed(workspace: string, source: McpSourceConfig, key: string, error: unknown): void {
    const code = classifyUpstreamError(error);
    if (code !== 'upstream_circuit_open') this.deps.pool.discard(workspace, source.name);
    const lastError = describeListFailure(error, code);
    this.deps.statuses.set(workspace, source.name, {
      status: 'unavailable',
      toolCount: 0,
      checkedAt: new Date().toISOString(),
      error: { code, errorClass: catalogueEntry(code).errorClass },
      era: undefined,
      eraDetectedAt: undefined,
      transportInUse: undefined,
      skippedTools: [],
      lastError,
    });
    // Only what says the source is down (what its breaker counts) makes it failing for everyone: a
    // 4xx, a missing caller identity or connection or a reach denial is about this request. A per-caller
    // source (token exchange, a user's connection) lists as its caller, so no probe could speak for the others.
    const ofSource = !isPerCaller(source) && (code === 'upstream_circuit_open' || countsAgainstSource(error));
    if (!ofSource) {
      this.deps.logger.warn({ workspace, source: source.name, code }, 'upstream tool discovery failed');
      return;
    }
    if (this.prober.fail(key, { workspace, source }, lastError))
      this.deps.logger.warn(
        { workspace, source: source.name, code, nextProbeAt: this.prober.failing(key)?.nextProbeAt },
        'upstream source failing: left out of tool lists and probed in the background until it answers',
      );
  }

  /** A good list of the source (listed here, by a probe, or by another replica into the shared
   * cache): logged once when it was failing. */
  recovered(workspace: string, source: McpSourceConfig, key: string): void {
    if (!this.prober.isFailing(key)) return;
    const was = this.prober.failing(key);
    this.prober.recovered(key);
    this.deps.logger.info(
      { workspace, source: source.name, failingSince: was?.since, probes: was?.attempts },
      'upstream source recovered',
    );
  }
}
