// The embeddings provider's own rate limit (issue 22): a token bucket refilled at requestsPerMinute,
// holding at most one second's worth (at least one), so requests are spread over the minute rather
// than sent in one burst. Takers are served in arrival order. Time comes from a Clock so tests can
// drive it.
import { setTimeout as delay } from 'node:timers/promises';

export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => performance.now(),
  sleep: (ms, signal) => delay(ms, undefined, signal === undefined ? {} : { signal }),
};

export class TokenBucket {
  private readonly perMs: number;
  readonly burst: number;
  private tokens: number;
  private updated: number;
  private tail: Promise<void> = Promise.resolve();

  constructor(
    perMinute: number,
    private readonly clock: Clock = systemClock,
  ) {
    this.perMs = perMinute / 60_000;
    this.burst = Math.max(1, Math.floor(perMinute / 60));
    this.tokens = this.burst;
    this.updated = clock.now();
  }

  /** Resolves when a request may be sent; rejects when `signal` aborts first. */
  take(signal?: AbortSignal): Promise<void> {
    const turn = this.tail.then(() => this.takeInTurn(signal));
    this.tail = turn.catch(() => undefined);
    return turn;
  }

  private async takeInTurn(signal: AbortSignal | undefined): Promise<void> {
    signal?.throwIfAborted();
    this.refill();
    if (this.tokens < 1) {
      await this.clock.sleep((1 - this.tokens) / this.perMs, signal);
      this.refill();
    }
    this.tokens -= 1;
  }

  private refill(): void {
    const now = this.clock.now();
    this.tokens = Math.min(this.burst, this.tokens + (now - this.updated) * this.perMs);
    this.updated = now;
  }
}
