// Limits benchmark (issue 10). Prints numbers and conditions; never asserts.
//  1. The limiter alone: admissions per second of a two-rule check (key + workspace per minute)
//     with the in-memory twin and against one local redis-server, at concurrency 1 and 32.
//  2. Added latency on the gateway: a cached tools/list and a tools/call with limits on, through a
//     gateway using the in-memory limiter and through one sharing state in Redis, in one run.
//  3. The cost of a tool limit (issue 41 part 4): the tools/call step alone (no matching limit, one
//     limit on the in-memory limiter, one on Redis), then, on the same gateways and key, tools/call of
//     the same upstream's echo through a source no tool limit matches and through one a limit does.
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKey, principalFor } from '../../gateway/auth/index.js';
import { validateConfig } from '../../gateway/config/index.js';
import { ToolLimits } from '../../gateway/limits/tool-limits.js';
import type { LimitRule } from '../../gateway/limits/limit-rules.js';
import { MemoryRateLimiter, type RateLimiter } from '../../gateway/limits/rate-limiter.js';
import { RedisRateLimiter } from '../../gateway/limits/redis-rate-limiter.js';
import { createRedis, redisReady } from '../../gateway/shared-state/redis-connection.js';
import { createPinoLogger } from '../../gateway/telemetry/index.js';
import { startRedis } from '../infra/redis-server.js';
import { testEncryption, testEncryptionEnv } from '../support/redis-encryption.js';
import { startBenchGateway, type BenchGateway } from './bench-gateway.js';
import { startChild } from './child-process.js';
import { formatResult, runLoad, type LoadResult } from './load.js';
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
  await toolLimitStep(local, shared);
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
              // `lim` is the same upstream again; only its tools are under a tool limit (never reached).
              mcpSources: [
                { name: 'up', transport: 'streamable-http', url: upstreamUrl },
                { name: 'lim', transport: 'streamable-http', url: upstreamUrl },
              ],
              governance: {
                toolLimits: [{ name: 'bench', tools: ['lim__*'], per: 'subject', callsPerMinute: 1_000_000 }],
              },
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
    await toolLimitCost(urls, key.key, durationMs);
  } finally {
    await Promise.all(gateways.map((g) => g.stop()));
    await upstream.stop();
    await rm(dir, { recursive: true, force: true });
    await redis.stop();
  }
}

/** tools/call echo with no tool limit against the same call under one tool limit (one more rule,
 * one more limiter round trip), alternated twice per point so drift hits both alike. */
async function toolLimitCost(
  urls: Record<string, string>,
  apiKey: string,
  durationMs: number,
): Promise<void> {
  console.log(
    'tool limit on tools/call (same gateway and key; up__echo: no tool limit, lim__echo: one per-caller limit):',
  );
  const call = (tool: string) =>
    modernRequest('tools/call', { name: tool, arguments: { text: 'hi' } }, tool, {
      authorization: `Bearer ${apiKey}`,
    });
  for (const mode of ['memory', 'redis'] as const) {
    const url = urls[mode] as string;
    for (const concurrency of [1, 32]) {
      for (const tool of ['up__echo', 'lim__echo'])
        await runLoad('warm-up', url, { concurrency, durationMs: 300, ...call(tool) });
      const runs = { without: [] as LoadResult[], with: [] as LoadResult[] };
      for (let round = 0; round < 2; round += 1) {
        runs.without.push(
          await runLoad(`no tool limit, ${mode}`, url, { concurrency, durationMs, ...call('up__echo') }),
        );
        runs.with.push(
          await runLoad(`one tool limit, ${mode}`, url, { concurrency, durationMs, ...call('lim__echo') }),
        );
      }
      for (const result of [...runs.without, ...runs.with]) console.log(formatResult(result));
      const mean = (list: LoadResult[], pick: (r: LoadResult) => number) =>
        list.reduce((sum, r) => sum + pick(r), 0) / list.length;
      console.log(
        `  added by the tool limit (${mode}, c=${concurrency}): p50 +${(mean(runs.with, (r) => r.p50Ms) - mean(runs.without, (r) => r.p50Ms)).toFixed(3)} ms, p99 +${(mean(runs.with, (r) => r.p99Ms) - mean(runs.without, (r) => r.p99Ms)).toFixed(3)} ms, throughput ${(mean(runs.with, (r) => r.rps) / mean(runs.without, (r) => r.rps)).toFixed(3)}x`,
      );
    }
  }
}

/** The tools/call limits step alone (ToolLimits.admit), sequentially: a call no tool limit matches,
 * and one that a per-caller limit matches on the in-memory and on the Redis limiter. Fixed counts,
 * well under the limit's burst, so every call is admitted. */
async function toolLimitStep(local: RateLimiter, shared: RateLimiter): Promise<void> {
  const key = generateKey();
  const parsed = validateConfig({
    version: 1,
    workspaces: [
      {
        name: 'step',
        keys: [{ id: key.id, hash: key.hash }],
        governance: {
          toolLimits: [{ name: 'bench', tools: ['lim__*'], per: 'subject', callsPerMinute: 1_000_000 }],
        },
      },
    ],
  });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  const workspace = parsed.config.workspaces[0];
  const apiKey = workspace?.keys[0];
  if (workspace === undefined || apiKey === undefined) throw new Error('no workspace');
  const principal = principalFor(apiKey, workspace);
  const time = async (limits: ToolLimits, tool: string, calls: number) => {
    for (let i = 0; i < Math.min(1000, calls); i += 1) await limits.admit(principal, tool);
    const started = performance.now();
    for (let i = 0; i < calls; i += 1)
      if ((await limits.admit(principal, tool)) !== undefined) throw new Error('refused');
    return ((performance.now() - started) / calls) * 1000;
  };
  const memory = new ToolLimits(local, () => 'agw:');
  const viaRedis = new ToolLimits(shared, () => 'agw:');
  console.log('tools/call limits step alone (ToolLimits.admit, sequential):');
  console.log(
    `  no tool limit matches        ${(await time(memory, 'up__echo', 200_000)).toFixed(2).padStart(8)} µs/call`,
  );
  console.log(
    `  one limit, in-memory limiter ${(await time(memory, 'lim__echo', 200_000)).toFixed(2).padStart(8)} µs/call`,
  );
  console.log(
    `  one limit, redis limiter     ${(await time(viaRedis, 'lim__echo', 20_000)).toFixed(2).padStart(8)} µs/call`,
  );
}
