// The pace of a running sync or embedding pass (issue 39): items per second since the phase started
// and the seconds left at that pace. Unknown (undefined) rather than a guess while too little has
// happened to tell, or when the total is unknown.
import type { Clock } from './embeddings/token-bucket.js';

/** Below this much elapsed time a rate is noise (the first page, a warm cache). */
const MIN_ELAPSED_MS = 1_000;

export interface Pace {
  readonly ratePerSecond: number | undefined;
  readonly etaSeconds: number | undefined;
}

export class RateMeter {
  private readonly startedAt: number;

  constructor(
    private readonly doneAtStart: number,
    private readonly clock: Clock,
  ) {
    this.startedAt = clock.now();
  }

  pace(done: number, total: number | undefined): Pace {
    const elapsed = this.clock.now() - this.startedAt;
    const progressed = done - this.doneAtStart;
    if (elapsed < MIN_ELAPSED_MS || progressed <= 0)
      return { ratePerSecond: undefined, etaSeconds: undefined };
    const rate = progressed / (elapsed / 1000);
    return {
      ratePerSecond: Math.round(rate * 10) / 10,
      etaSeconds: total === undefined || total < done ? undefined : Math.ceil((total - done) / rate),
    };
  }
}
