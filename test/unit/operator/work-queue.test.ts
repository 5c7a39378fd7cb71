// The operator's work queue: deduplication, one reconcile per key at a time with a re-run when the
// key changed meanwhile, and per-key exponential backoff on failure.
import { describe, expect, it } from 'vitest';
import { WorkQueue } from '../../../operator/runtime/work-queue.js';

describe('WorkQueue', () => {
  it('operator:queue-dedupe — a key added many times while queued runs once; added while running, runs again after', async () => {
    const runs: string[] = [];
    let release: (() => void) | undefined;
    const queue = new WorkQueue(
      async (key) => {
        runs.push(key);
        if (runs.length === 1) await new Promise<void>((resolve) => (release = resolve));
      },
      { concurrency: 1 },
    );
    queue.add('a');
    queue.add('a'); // running now: marks it dirty
    queue.add('a');
    queue.add('b'); // queued behind a: the second add is absorbed
    queue.add('b');
    await new Promise((r) => setTimeout(r, 10));
    release?.();
    await queue.idle();
    expect(runs.filter((k) => k === 'a')).toHaveLength(2);
    expect(runs.filter((k) => k === 'b')).toHaveLength(1);
  });

  it('operator:queue-backoff — a failing key is retried with doubling delays until it succeeds', async () => {
    const delays: number[] = [];
    let attempts = 0;
    const queue = new WorkQueue(
      () => {
        attempts += 1;
        return attempts < 4 ? Promise.reject(new Error('not yet')) : Promise.resolve();
      },
      { baseDelayMs: 5, maxDelayMs: 1000, onError: (_key, _error, retryInMs) => delays.push(retryInMs) },
    );
    queue.add('w');
    const deadline = Date.now() + 5000;
    while (attempts < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    await queue.idle();
    expect(attempts).toBe(4);
    expect(delays).toEqual([5, 10, 20]);
    queue.stop();
  });
});
