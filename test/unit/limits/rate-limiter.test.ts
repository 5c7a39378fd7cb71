// The limiter algorithm with an injected clock (issue 10): GCRA rates, daily quotas, all-or-nothing
// admission, and refusals that never consume anything.
import { describe, expect, it } from 'vitest';
import { gcra } from '../../../gateway/limits/gcra.js';
import type { LimitRule } from '../../../gateway/limits/limit-rules.js';
import { MemoryRateLimiter } from '../../../gateway/limits/rate-limiter.js';

const minute = (key: string, limit: number): LimitRule => ({
  key,
  policy: key,
  kind: 'rate',
  limit,
  periodMs: 60_000,
});
const daily = (key: string, limit: number): LimitRule => ({
  key,
  policy: key,
  kind: 'quota',
  limit,
  periodMs: 86_400_000,
});

describe('GCRA', () => {
  it('limits:gcra — N per period admits a burst of N, then one every period/N; a refusal changes nothing', () => {
    let tat: number | undefined;
    const at = (now: number) => {
      const step = gcra(tat, now, 5, 60_000);
      if (step.allowed) tat = step.tat;
      return step;
    };
    expect([0, 1, 2, 3, 4].map(() => at(0).allowed)).toEqual([true, true, true, true, true]);
    const refused = at(0);
    expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 12_000 });
    expect(at(6_000)).toMatchObject({ allowed: false, retryAfterMs: 6_000 });
    expect(at(12_000)).toMatchObject({ allowed: true, remaining: 0 });
    expect(at(12_001).allowed).toBe(false);
    // After a full quiet period the whole burst is back.
    expect(at(12_000 + 60_000)).toMatchObject({ allowed: true, remaining: 4 });
  });
});

describe('MemoryRateLimiter', () => {
  it('memory:limiter-sweep — counters of callers that stopped calling are dropped; live ones are kept', async () => {
    let now = Date.UTC(2026, 10, 25, 12, 0, 0);
    const limiter = new MemoryRateLimiter(() => now);
    for (let i = 0; i < 1000; i += 1) await limiter.admit([minute(`subject-${i}`, 10), daily(`day-${i}`, 5)]);
    expect(limiter.size).toBe(2000);
    // A minute later every TAT is in the past (one request of ten per minute); the quotas are today's.
    now += 61_000;
    const live = minute('live', 2);
    await limiter.admit([live]);
    expect(limiter.size).toBe(1001);
    // The live counter still counts: its second request is the last of its burst.
    expect((await limiter.admit([live])).remaining).toBe(0);
    // The next day the quotas go too.
    now += 86_400_000;
    await limiter.admit([minute('other', 1)]);
    expect(limiter.size).toBe(1);
  });

  it('limits:all-or-nothing — a request refused by one rule is counted by none', async () => {
    let now = 0;
    const limiter = new MemoryRateLimiter(() => now);
    const tight = minute('key', 1);
    const loose = minute('workspace', 3);
    expect((await limiter.admit([tight, loose])).allowed).toBe(true);
    for (let i = 0; i < 5; i += 1) {
      const verdict = await limiter.admit([tight, loose]);
      expect(verdict).toMatchObject({ allowed: false, rule: tight });
    }
    // The workspace rule saw only the one admitted request: two more fit.
    expect((await limiter.admit([loose])).remaining).toBe(1);
    expect((await limiter.admit([loose])).remaining).toBe(0);
    expect((await limiter.admit([loose])).allowed).toBe(false);
    now = 60_000;
    expect((await limiter.admit([tight, loose])).allowed).toBe(true);
  });

  it('limits:quota-daily — a daily quota refuses until the next UTC day and retries never add quota', async () => {
    let now = Date.UTC(2026, 10, 22, 23, 0, 0);
    const limiter = new MemoryRateLimiter(() => now);
    const quota = daily('calls', 3);
    for (let i = 0; i < 3; i += 1) expect((await limiter.admit([quota])).allowed).toBe(true);
    for (let i = 0; i < 10; i += 1) {
      const verdict = await limiter.admit([quota]);
      expect(verdict.allowed).toBe(false);
      expect(verdict.retryAfterMs).toBe(3_600_000);
    }
    now = Date.UTC(2026, 10, 23, 0, 0, 1);
    expect(await limiter.admit([quota])).toMatchObject({ allowed: true, remaining: 2 });
  });
});
