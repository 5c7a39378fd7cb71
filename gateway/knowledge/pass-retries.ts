// When an embedding pass that stopped (provider failure, its time limit) resumes by itself (issue 39):
// one timer per source at most, waiting 5 s doubling to 5 minutes with jitter while passes make no
// headway, and the first wait again after a pass that embedded something. A sync's own pass replaces
// a pending timer; config change, removal and shutdown clear it.
import { backoffMs, type BackoffShape } from './embeddings/retry-schedule.js';

export const PASS_RETRY: BackoffShape = { baseMs: 5_000, maxMs: 300_000 };

interface Pending {
  timer: NodeJS.Timeout | undefined;
  /** Passes in a row that stopped without embedding anything. */
  failures: number;
}

export class PassRetries {
  private readonly pending = new Map<string, Pending>();
  private closed = false;

  constructor(
    private readonly shape: BackoffShape = PASS_RETRY,
    private readonly random: () => number = Math.random,
  ) {}

  /** Arms the next resumption of `key` after a pass stopped; returns when it runs (epoch ms). */
  arm(key: string, headway: boolean, run: () => void): number | undefined {
    if (this.closed) return undefined;
    const entry = this.pending.get(key) ?? { timer: undefined, failures: 0 };
    if (entry.timer !== undefined) clearTimeout(entry.timer);
    entry.failures = headway ? 0 : entry.failures + 1;
    const wait = Math.round(backoffMs(Math.max(0, entry.failures - 1), this.shape, this.random));
    entry.timer = setTimeout(() => {
      entry.timer = undefined;
      run();
    }, wait);
    entry.timer.unref();
    this.pending.set(key, entry);
    return Date.now() + wait;
  }

  /** A pass starts (a sync's or a resumption): no timer stays armed; the failure count stays. */
  disarm(key: string): void {
    const entry = this.pending.get(key);
    if (entry?.timer !== undefined) clearTimeout(entry.timer);
    if (entry !== undefined) entry.timer = undefined;
  }

  /** The pass finished, or the source changed or left: nothing pending, failures forgotten. */
  clear(key: string): void {
    this.disarm(key);
    this.pending.delete(key);
  }

  close(): void {
    this.closed = true;
    for (const key of [...this.pending.keys()]) this.clear(key);
  }
}
