// Limits benchmark (issue 10). Prints numbers and conditions; never asserts.
//  1. The limiter alone: admissions per second of a two-rule check (key + workspace per minute)
//     with the in-memory twin and against one local redis-server, at concurrency 1 and 32.
//  2. Added latency on the gateway: a cached tools/list and a tools/call with limits on, through a
//     gateway using the in-memory limiter and through one sharing state in Redis, in one run.
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKey } from '../../gateway/auth/index.js';
import type { LimitRule } from '../../gateway/limits/limit-rules.js';
import { MemoryRateLimiter, type RateLimiter } from '../../gateway/limits/rate-limiter.js';
import { RedisRateLimiter } from '../../gateway/limits/redis-rate-limiter.js';
import { createRedis, redisReady } from '../../gateway/shared-state/redis-connection.js';
import { createPinoLogger } from '../../gateway/telemetry/index.js';
import { startRedis } from '../infra/redis-server.js';
import { testEncryption, testEncryptionEnv } from '../support/redis-encryption.js';
import { startBenchGateway, type BenchGateway } from './bench-gateway.js';
import { startChild } from './child-process.js';
import { formatResult, runLoad } from './load.js';
import { modernRequest } from './mcp-shapes.js';

async function checksPerSecond(
  limiter: RateLimiter,
  concurrency: number,
  durationMs: number,
): Promise<number> {
  const rules: LimitRule[] = [
    { key: 'agw:{bench}:key:k:minute', policy: 'key-minute', kind: 'rate', limit: 1e9, periodMs: 60_000 },
    {
      key: 'agw:{bench}:workspace:minute',
      policy: 'workspace-minute',
      kind: 'rate',
      limit: 1e9,
      periodMs: 60_000,
    },
  ];
  let checks = 0;
  const end = performance.now() + durationMs;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        await limiter.admit(rules);
        checks += 1;
      }
    }),
  );
  return (checks / durationMs) * 1000;
}

export async function limitsBench(): Promise<void> {
  const durationMs = Number(process.env['BENCH_DURATION_MS'] ?? 3000);
  console.log('\n== Limits benchmark ==');
  console.log(
    `conditions: Node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), loopback; redis-server ${'7 (Debian)'} on this machine, no persistence; ${durationMs} ms per point`,
  );
  const redis = await startRedis();
  const logger = createPinoLogger({ level: 'silent' });
  const client = createRedis({ url: redis.url, logger });
  await redisReady(client);
  const shared = new RedisRateLimiter({ redis: client, logger, replicas: () => 1, timeoutMs: 1000 });
  const local = new MemoryRateLimiter();
  console.log('limiter alone, two rules per check:');
  for (const concurrency of [1, 32]) {
    const memory = await checksPerSecond(local, concurrency, durationMs);
    const viaRedis = await checksPerSecond(shared, concurrency, durationMs);
    console.log(
      `  c=${String(concurrency).padStart(2)}  in-memory ${memory.toFixed(0).padStart(9)} checks/s   redis ${viaRedis.toFixed(0).padStart(7)} checks/s (${(viaRedis / memory).toFixed(3)}x)`,
    );
  }
  client.disconnect();

  const upstream = await startChild(['dist/test/bench/modern-upstream-main.js'], /"url"/);
  const upstreamUrl = (JSON.parse(upstream.line) as { url: string }).url;
  const dir = await mkdtemp(join(tmpdir(), 'agw-limits-bench-'));
  const key = generateKey();
  const gateways: BenchGateway[] = [];
  try {
    const urls: Record<string, string> = {};
    for (const mode of ['memory', 'redis'] as const) {
      const gateway = await startBenchGateway(
        dir,
        mode,
        {
          ...(mode === 'redis'
            ? { sharedState: { redis: { url: { env: 'REDIS_URL' } }, encryption: testEncryption } }
            : {}),
          workspaces: [
            {
              name: 'bench',
              limits: { requestsPerMinute: 60_000_000 },
              mcpSources: [{ name: 'up', transport: 'streamable-http', url: upstreamUrl }],
              keys: [
                { id: key.id, hash: key.hash, access: 'write', limits: { requestsPerSecond: 1_000_000 } },
              ],
            },
          ],
        },
        { ...process.env, ...testEncryptionEnv, REDIS_URL: redis.url },
      );
      gateways.push(gateway);
      urls[mode] = `${gateway.url}/mcp`;
    }
    console.log('gateway with limits on (a key rule and a workspace rule checked per request):');
    for (const [label, request] of [
      [
        'tools/list (cached)',
        modernRequest('tools/list', {}, undefined, { authorization: `Bearer ${key.key}` }),
      ],
      [
        'tools/call echo',
        modernRequest('tools/call', { name: 'up__echo', arguments: { text: 'hi' } }, 'up__echo', {
          authorization: `Bearer ${key.key}`,
        }),
      ],
    ] as const) {
      for (const concurrency of [1, 32]) {
        for (const mode of ['memory', 'redis'] as const)
          await runLoad('warm-up', urls[mode] as string, { concurrency, durationMs: 300, ...request });
        const memory = await runLoad(`${label}, memory limiter`, urls['memory'] as string, {
          concurrency,
          durationMs,
          ...request,
        });
        const viaRedis = await runLoad(`${label}, redis limiter`, urls['redis'] as string, {
          concurrency,
          durationMs,
          ...request,
        });
        console.log(formatResult(memory));
        console.log(formatResult(viaRedis));
        console.log(
          `  added by redis: p50 +${(viaRedis.p50Ms - memory.p50Ms).toFixed(2)} ms, p99 +${(viaRedis.p99Ms - memory.p99Ms).toFixed(2)} ms, throughput ${(viaRedis.rps / memory.rps).toFixed(2)}x`,
        );
      }
    }
  } finally {
    await Promise.all(gateways.map((g) => g.stop()));
    await upstream.stop();
    await rm(dir, { recursive: true, force: true });
    await redis.stop();
  }
}
