// Gateway replicas sharing one real redis-server (issues 10 and 24): the set-up every replicas test
// repeated. One redis-server, one config document with `sharedState` pointing at it (through
// REDIS_URL, with the test encryption key), and `count` gateways on that document: real
// `agent-gateway serve` processes, or in-process gateways (gateway-harness.ts) when the test needs
// their logs or config. `stop()` stops the gateways, then Redis, then removes the config.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { GeneratedKey } from '../../gateway/auth/index.js';
import { writeGatewayConfig } from '../bench/bench-gateway.js';
import { startRedis, type RunningRedis } from '../infra/redis-server.js';
import { forwarding, keyRecord, startHarness, type Harness } from './gateway-harness.js';
import { startGatewayProcesses, type GatewayProcess } from './gateway-processes.js';
import { testEncryption, testEncryptionEnv } from './redis-encryption.js';

export interface RedisReplicas<G> {
  /** The shared redis-server (tests kill, restart, pause and resume it). */
  readonly redis: RunningRedis;
  readonly gateways: readonly G[];
  stop(): Promise<void>;
}

/** The `sharedState` section every replica gets: the Redis at REDIS_URL, with the test key.
 * `redis` adds to the Redis options (e.g. `commandTimeoutMs`). */
export function sharedRedisState(redis: Record<string, unknown> = {}): Record<string, unknown> {
  return { redis: { url: { env: 'REDIS_URL' }, ...redis }, encryption: testEncryption };
}

/** `count` real gateway processes on one config file: `document` (workspaces, …) plus the shared
 * state. */
export async function startReplicaProcesses(
  count: number,
  document: Record<string, unknown>,
  redisOptions: Record<string, unknown> = {},
): Promise<RedisReplicas<GatewayProcess>> {
  const redis = await startRedis();
  const dir = await mkdtemp(join(tmpdir(), 'agw-replicas-'));
  const gateways: GatewayProcess[] = [];
  const stop = async () => {
    await Promise.all(gateways.map((g) => g.child.stop()));
    await redis.stop();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const configPath = await writeGatewayConfig(dir, {
      sharedState: sharedRedisState(redisOptions),
      ...document,
    });
    const env = { ...process.env, ...testEncryptionEnv, REDIS_URL: redis.url };
    gateways.push(...(await startGatewayProcesses(configPath, count, env)));
  } catch (error) {
    await stop();
    throw error;
  }
  return { redis, gateways, stop };
}

/** `count` in-process gateways (startHarness) on `document` plus the shared state (`redisOptions`
 * added to its Redis options, as for startReplicaProcesses). */
export async function startReplicaHarnesses(
  count: number,
  document: Record<string, unknown>,
  redisOptions: Record<string, unknown> = {},
): Promise<RedisReplicas<Harness>> {
  const redis = await startRedis();
  const gateways: Harness[] = [];
  const stop = async () => {
    for (const gateway of gateways) await gateway.stop();
    await redis.stop();
  };
  try {
    const env = { ...testEncryptionEnv, REDIS_URL: redis.url };
    for (let i = 0; i < count; i += 1)
      gateways.push(await startHarness({ sharedState: sharedRedisState(redisOptions), ...document }, env));
  } catch (error) {
    await stop();
    throw error;
  }
  return { redis, gateways, stop };
}

/**
 * The replicas a test file shares, in front of one fixture upstream: beforeAll starts the upstream,
 * then `count` replicas (`start`: processes or harnesses) on one workspace whose only source is
 * `source` at the upstream's URL and whose write key is `key`; afterAll stops the replicas, then the
 * upstream. `upstream` forwards to the running server; `gateways` is filled in beforeAll.
 */
export function fileReplicas<U extends { url: string; close(): Promise<unknown> }, G>(
  start: (count: number, document: Record<string, unknown>) => Promise<RedisReplicas<G>>,
  count: number,
  startUpstream: () => Promise<U>,
  sourceName: string,
  key: GeneratedKey,
  workspaceName = 'demo',
): { upstream: U; gateways: readonly G[] } {
  let upstream: U | undefined;
  let replicas: RedisReplicas<G> | undefined;
  const gateways: G[] = [];
  beforeAll(async () => {
    upstream = await startUpstream();
    const source = { name: sourceName, transport: 'streamable-http', url: upstream.url };
    const keys = [keyRecord(key, { access: 'write' })];
    replicas = await start(count, { workspaces: [{ name: workspaceName, mcpSources: [source], keys }] });
    gateways.push(...replicas.gateways);
  }, 60_000);
  afterAll(async () => {
    await replicas?.stop();
    await upstream?.close();
  });
  const running = (): U => {
    if (upstream === undefined) throw new Error("this file's upstream is not running");
    return upstream;
  };
  return { upstream: forwarding(running), gateways };
}
