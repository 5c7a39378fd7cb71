// Which sources are failing on this replica, and their background probes (issue 37 item 12, D14):
// a source whose listing failed is left out of request paths and re-listed here instead, one probe
// at a time per source, with exponential backoff and jitter up to its breaker's reset time, at most
// MAX_RUNNING_PROBES at once per replica; stopped when the source leaves the config or on shutdown.
// The probe itself (cache, breaker, listing) belongs to the catalog; this module owns the timing.
import type { McpSourceConfig } from '../config/index.js';
import { runAsBackground } from '../upstream/index.js';

export interface ProbeTarget {
  readonly workspace: string;
  readonly source: McpSourceConfig;
}

/** A failing source as /agent/sources shows it. */
export interface FailingSource {
  readonly since: string;
  /** Probes made since it started failing. */
  readonly attempts: number;
  /** When the next probe starts; undefined while one runs. */
  readonly nextProbeAt: string | undefined;
  /** Why the last attempt failed, in fixed words (describeUpstreamFailure). */
  readonly lastError: string;
}

interface Entry {
  readonly target: ProbeTarget;
  readonly since: number;
  attempts: number;
  lastError: string;
  nextAt: number | undefined;
  timer: NodeJS.Timeout | undefined;
}

/** The first probe comes after about a second; each later one waits twice as long as the one before,
 * up to the source's `breaker.resetTimeoutMs` (the breaker's own probe interval). */
const FIRST_PROBE_MS = 1000;
/** Probes running at once on one replica; a probe over the bound waits FIRST_PROBE_MS more. */
export const MAX_RUNNING_PROBES = 8;

export interface SourceProberOptions {
  /** Lists the source once (through its breaker); the prober sees success as `recovered(key)`. */
  readonly probe: (target: ProbeTarget) => Promise<void>;
  readonly now?: () => number;
  readonly random?: () => number;
}

export class SourceProber {
  private readonly entries = new Map<string, Entry>();
  private running = 0;
  private closed = false;
  private readonly now: () => number;
  private readonly random: () => number;

  constructor(private readonly options: SourceProberOptions) {
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
  }

  isFailing(key: string): boolean {
    return this.entries.has(key);
  }

  failing(key: string): FailingSource | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    return {
      since: new Date(entry.since).toISOString(),
      attempts: entry.attempts,
      nextProbeAt: entry.nextAt === undefined ? undefined : new Date(entry.nextAt).toISOString(),
      lastError: entry.lastError,
    };
  }

  /** Every failing source's key (for the metrics gauge). */
  keys(): string[] {
    return [...this.entries.keys()];
  }

  /** Records a failed listing; true when the source was not failing before (then probing starts). */
  fail(key: string, target: ProbeTarget, lastError: string): boolean {
    const known = this.entries.get(key);
    if (known !== undefined) {
      known.lastError = lastError;
      return false;
    }
    if (this.closed) return false;
    const entry: Entry = {
      target,
      since: this.now(),
      attempts: 0,
      lastError,
      nextAt: undefined,
      timer: undefined,
    };
    this.entries.set(key, entry);
    this.schedule(key, entry);
    return true;
  }

  /** Records a good listing (here, by a probe, or by another replica); true when it was failing. */
  recovered(key: string): boolean {
    const entry = this.entries.get(key);
    if (entry === undefined) return false;
    this.stop(key, entry);
    return true;
  }

  /** Stops probing sources the config no longer has in this form (keys carry the fingerprint). */
  retain(wanted: ReadonlySet<string>): void {
    for (const [key, entry] of this.entries) if (!wanted.has(key)) this.stop(key, entry);
  }

  close(): void {
    this.closed = true;
    for (const [key, entry] of this.entries) this.stop(key, entry);
  }

  /** The delay before the next probe: FIRST_PROBE_MS doubled per attempt, capped at the breaker's
   * reset time, then stretched by up to a quarter at random so replicas and sources drift apart
   * (never shorter than the cap: no more probes than the breaker's own half-open cadence). */
  private delay(entry: Entry): number {
    const cap = entry.target.source.breaker.resetTimeoutMs;
    const raw = Math.min(cap, FIRST_PROBE_MS * 2 ** Math.min(entry.attempts, 20));
    return Math.round(raw * (1 + this.random() * 0.25));
  }

  private schedule(key: string, entry: Entry, delayMs = this.delay(entry)): void {
    if (this.closed || this.entries.get(key) !== entry) return;
    entry.nextAt = this.now() + delayMs;
    entry.timer = setTimeout(() => void this.run(key, entry), delayMs);
    entry.timer.unref();
  }

  private async run(key: string, entry: Entry): Promise<void> {
    entry.timer = undefined;
    if (this.entries.get(key) !== entry) return;
    if (this.running >= MAX_RUNNING_PROBES) return this.schedule(key, entry, FIRST_PROBE_MS);
    entry.nextAt = undefined;
    entry.attempts += 1;
    this.running += 1;
    try {
      // Marked: a probe is no client's call (a source scaled to zero is not woken for it, D25).
      await runAsBackground(() => this.options.probe(entry.target));
    } catch {
      // The catalog records what went wrong; a throwing probe is a failed one.
    } finally {
      this.running -= 1;
    }
    // Recovered, retained away or closed meanwhile: nothing more to do.
    this.schedule(key, entry);
  }

  private stop(key: string, entry: Entry): void {
    if (entry.timer !== undefined) clearTimeout(entry.timer);
    entry.timer = undefined;
    this.entries.delete(key);
  }
}
