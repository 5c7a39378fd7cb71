// One contract for both RateLimiter implementations (D6): the in-memory twin and the Redis one
// against a real redis-server. Plus the Redis one's fallback when Redis is killed, and its return.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LimitRule } from '../../gateway/limits/limit-rules.js';
import { MemoryRateLimiter, type RateLimiter } from '../../gateway/limits/rate-limiter.js';
import { RedisRateLimiter } from '../../gateway/limits/redis-rate-limiter.js';
import { createRedis, redisReady, type RedisClient } from '../../gateway/shared-state/redis-connection.js';
import { createPinoLogger } from '../../gateway/telemetry/index.js';
import { startRedis, type RunningRedis } from '../infra/redis-server.js';

let redis: RunningRedis;
const clients: RedisClient[] = [];
const logger = createPinoLogger({ level: 'silent' });

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  for (const client of clients) client.disconnect();
  await redis.stop();
});

async function redisLimiter(replicas = 1): Promise<RedisRateLimiter> {
  const client = createRedis({ url: redis.url, logger });
  clients.push(client);
  expect(await redisReady(client)).toBe(true);
  return new RedisRateLimiter({ redis: client, logger, replicas: () => replicas, timeoutMs: 200 });
}

let unique = 0;
const rule = (kind: 'rate' | 'quota', limit: number): LimitRule => {
  unique += 1;
  const key = `agw:{test}:${kind}:${unique}:${Math.random().toString(16).slice(2)}`;
  return { key, policy: key, kind, limit, periodMs: kind === 'rate' ? 600_000 : 86_400_000 };
};

describe.each([
  ['memory', () => Promise.resolve(new MemoryRateLimiter() as RateLimiter)],
  ['redis', () => redisLimiter() as Promise<RateLimiter>],
])('%s limiter', (_name, make) => {
  it('limits:contract — N admitted, then refused with Retry-After; refusals and other rules never consume', async () => {
    const limiter = await make();
    const rate = rule('rate', 3);
    const roomy = rule('rate', 100);
    const verdicts = [];
    for (let i = 0; i < 6; i += 1) verdicts.push(await limiter.admit([rate, roomy]));
    expect(verdicts.map((v) => v.allowed)).toEqual([true, true, true, false, false, false]);
    expect(verdicts[3]?.retryAfterMs).toBeGreaterThan(190_000);
    expect(verdicts[3]?.rule?.key).toBe(rate.key);
    expect((await limiter.admit([roomy])).remaining).toBe(100 - 4);
    const quota = rule('quota', 2);
    expect((await limiter.admit([quota])).allowed).toBe(true);
    expect((await limiter.admit([quota])).remaining).toBe(0);
    for (let i = 0; i < 5; i += 1) expect((await limiter.admit([quota])).allowed).toBe(false);
  });
});

describe.each([
  ['memory', () => Promise.resolve(new MemoryRateLimiter() as RateLimiter)],
  ['redis', () => redisLimiter() as Promise<RateLimiter>],
])('%s limiter peek', (_name, make) => {
  it('limits:peek — peek reads each rate and quota as admit counts it, and counts nothing itself', async () => {
    const limiter = await make();
    const rate = rule('rate', 5);
    const quota = rule('quota', 3);
    const fresh = await limiter.peek([rate, quota]);
    expect(fresh.map((u) => [u.used, u.remaining])).toEqual([
      [0, 5],
      [0, 3],
    ]);
    expect(fresh[1]?.resetMs).toBeGreaterThan(0);
    for (let i = 0; i < 3; i += 1) expect((await limiter.admit([rate, quota])).allowed).toBe(true);
    for (let i = 0; i < 10; i += 1) await limiter.peek([rate, quota]);
    const after = await limiter.peek([rate, quota]);
    expect(after.map((u) => [u.rule.key, u.used, u.remaining])).toEqual([
      [rate.key, 3, 2],
      [quota.key, 3, 0],
    ]);
    // A rate's counter is full again three intervals (3 × 120 s) from now.
    expect(after[0]?.resetMs).toBeGreaterThan(350_000);
    expect(after[0]?.resetMs).toBeLessThanOrEqual(360_000);
    expect((await limiter.admit([rate])).remaining).toBe(1);
    expect((await limiter.admit([quota])).allowed).toBe(false);
    expect((await limiter.peek([quota]))[0]?.used).toBe(3);
  });
});

describe('shared through Redis', () => {
  it('limits:shared-exact — three limiters (three replicas) on one Redis admit exactly N between them', async () => {
    const limiters = await Promise.all([redisLimiter(3), redisLimiter(3), redisLimiter(3)]);
    const shared = rule('rate', 10);
    const verdicts = await Promise.all(
      Array.from({ length: 60 }, (_, i) => (limiters[i % 3] as RedisRateLimiter).admit([shared])),
    );
    expect(verdicts.filter((v) => v.allowed)).toHaveLength(10);
  });

  it('limits:redis-down-fallback — with Redis killed, each replica admits its share and nothing fails; sharing resumes when it returns', async () => {
    const limiter = await redisLimiter(2);
    const limited = rule('rate', 10);
    expect((await limiter.admit([limited])).allowed).toBe(true);
    await redis.kill();
    const during = [];
    for (let i = 0; i < 10; i += 1) during.push(await limiter.admit([limited]));
    expect(limiter.shared).toBe(false);
    expect(during.filter((v) => v.allowed)).toHaveLength(5);
    await redis.restart();
    const deadline = Date.now() + 10_000;
    while (!limiter.shared && Date.now() < deadline) {
      await limiter.admit([rule('rate', 1000)]);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(limiter.shared).toBe(true);
  });
});
