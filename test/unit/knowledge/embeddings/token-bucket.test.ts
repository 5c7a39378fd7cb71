// The embeddings rate limit (issue 22) on a driven clock: a one-second burst, then one request per
// 60/requestsPerMinute seconds, in arrival order; an aborted waiter leaves without a token.
import { describe, expect, it } from 'vitest';
import { TokenBucket, type Clock } from '../../../../gateway/knowledge/embeddings/index.js';

/** A clock whose sleeps advance time at once, recording when each taker got through. */
function drivenClock(): Clock & { time: number } {
  const clock = {
    time: 0,
    now: () => clock.time,
    sleep: (ms: number, signal?: AbortSignal) => {
      signal?.throwIfAborted();
      clock.time += ms;
      return Promise.resolve();
    },
  };
  return clock;
}

describe('TokenBucket', () => {
  it('knowledge:embeddings-rate-limit — a burst of one second, then one request per interval', async () => {
    const clock = drivenClock();
    const bucket = new TokenBucket(120, clock); // 2 a second: a burst of 2, then one every 500 ms
    const times: number[] = [];
    await Promise.all(Array.from({ length: 6 }, () => bucket.take().then(() => times.push(clock.time))));
    expect(times.map(Math.round)).toEqual([0, 0, 500, 1000, 1500, 2000]);
  });

  it('knowledge:embeddings-rate-limit — at most requestsPerMinute plus the burst in any minute', async () => {
    const clock = drivenClock();
    const bucket = new TokenBucket(30, clock); // below one a second: a burst of 1
    let taken = 0;
    while (clock.time <= 60_000) {
      await bucket.take();
      taken += 1;
    }
    expect(bucket.burst).toBe(1);
    expect(taken).toBeLessThanOrEqual(31 + 1);
    expect(taken).toBeGreaterThanOrEqual(30);
  });

  it('knowledge:embeddings-rate-limit — an aborted taker rejects and the queue moves on', async () => {
    const clock = drivenClock();
    const bucket = new TokenBucket(60, clock);
    await bucket.take();
    const controller = new AbortController();
    controller.abort();
    await expect(bucket.take(controller.signal)).rejects.toThrow();
    await bucket.take();
    expect(Math.round(clock.time)).toBe(1000);
  });
});
