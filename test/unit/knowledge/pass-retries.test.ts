// When a stopped embedding pass resumes (issue 39): 5 s doubling to 5 minutes, jittered over the upper
// half, while passes embed nothing; the first wait again after headway; one timer per source; clear
// and close leave nothing armed. The pace of a phase: unknown until a second has passed and something
// moved; time left only with a known total.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PASS_RETRY, PassRetries } from '../../../gateway/knowledge/pass-retries.js';
import { RateMeter } from '../../../gateway/knowledge/rate-meter.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('PassRetries', () => {
  it('knowledge:pass-retry-backoff — doubles while passes make no headway, capped, back to the first after headway', () => {
    const retries = new PassRetries(PASS_RETRY, () => 1); // the full wait, no jitter below it
    const waits: number[] = [];
    for (let i = 0; i < 9; i += 1) waits.push(retries.arm('a/docs', false, () => undefined)! - Date.now());
    expect(waits).toEqual([5_000, 10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000, 300_000]);
    expect(retries.arm('a/docs', true, () => undefined)! - Date.now()).toBe(5_000);
    const low = new PassRetries(PASS_RETRY, () => 0);
    expect(low.arm('a/docs', false, () => undefined)! - Date.now()).toBe(2_500);
  });

  it('knowledge:pass-retry-backoff — one timer per source: re-arming replaces it; disarm, clear and close stop it', () => {
    const retries = new PassRetries({ baseMs: 100, maxMs: 1_000 }, () => 1);
    const run = vi.fn();
    retries.arm('a/docs', false, run);
    retries.arm('a/docs', false, run);
    vi.advanceTimersByTime(200);
    expect(run).toHaveBeenCalledTimes(1);
    retries.arm('a/docs', false, run);
    retries.disarm('a/docs');
    retries.arm('a/wiki', false, run);
    retries.clear('a/wiki');
    vi.advanceTimersByTime(5_000);
    expect(run).toHaveBeenCalledTimes(1);
    // Disarm kept the failure count (the fourth in a row: 800 ms); clear forgot it (first: 100 ms).
    expect(retries.arm('a/docs', false, run)! - Date.now()).toBe(800);
    expect(retries.arm('a/wiki', false, run)! - Date.now()).toBe(100);
    retries.close();
    vi.advanceTimersByTime(5_000);
    expect(run).toHaveBeenCalledTimes(1);
    expect(retries.arm('a/docs', false, run)).toBeUndefined();
  });
});

describe('RateMeter', () => {
  it('knowledge:rate-meter — unknown early on, then items per second and seconds left', () => {
    let now = 0;
    const meter = new RateMeter(100, { now: () => now, sleep: () => Promise.resolve() });
    now = 500;
    expect(meter.pace(150, 1_100)).toEqual({ ratePerSecond: undefined, etaSeconds: undefined });
    now = 2_000;
    expect(meter.pace(100, 1_100)).toEqual({ ratePerSecond: undefined, etaSeconds: undefined });
    expect(meter.pace(300, 1_100)).toEqual({ ratePerSecond: 100, etaSeconds: 8 });
    expect(meter.pace(300, undefined)).toEqual({ ratePerSecond: 100, etaSeconds: undefined });
    now = 3_000;
    expect(meter.pace(401, 402)).toEqual({ ratePerSecond: 100.3, etaSeconds: 1 });
  });
});
