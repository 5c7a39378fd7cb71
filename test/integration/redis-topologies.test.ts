// Every shared-state adapter against the Redis shapes a deployment may have besides one plain
// server (issue 10: "Sentinel and Cluster URLs supported by ioredis should work too", TLS): a
// TLS-only server with a private CA, a Sentinel-managed master, and a three-master Cluster, all
// real redis-server processes. Limits are exact across three replicas; a discovery invalidation
// deletes entries on every Cluster master and reaches the other replica; upstream sessions are
// shared; a bridged continuation is forwarded between replicas.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisDiscoveryCache } from '../../gateway/discovery/redis-discovery-cache.js';
import type { LimitRule } from '../../gateway/limits/limit-rules.js';
import { RedisRateLimiter } from '../../gateway/limits/redis-rate-limiter.js';
import { RedisBridgeForwarder } from '../../gateway/mcp/redis-bridge-forwarder.js';
import {
  createRedis,
  duplicateRedis,
  redisReady,
  type RedisClient,
} from '../../gateway/shared-state/redis-connection.js';
import { createPinoLogger } from '../../gateway/telemetry/index.js';
import { ValueCipher } from '../../gateway/shared-state/value-cipher.js';
import { RedisSessionStore } from '../../gateway/upstream/redis-session-store.js';
import {
  startClusterRedis,
  startSentinelRedis,
  startTlsRedis,
  type RunningTopology,
} from '../infra/redis-topologies.js';
import { until } from '../support/until.js';

const logger = createPinoLogger({ level: 'silent' });
const cipher = new ValueCipher(['a-test-encryption-key-of-32-chars-or-more']);

describe.each([
  ['TLS', startTlsRedis],
  ['Sentinel', startSentinelRedis],
  ['Cluster', startClusterRedis],
])('%s', (name, start) => {
  let topology: RunningTopology;
  const clients: RedisClient[] = [];

  beforeAll(async () => {
    topology = await start();
  }, 60_000);
  afterAll(async () => {
    for (const client of clients) client.disconnect();
    await topology?.stop();
  });

  /** The second (pub/sub) connection a replica keeps next to its client. */
  function subscriberOf(redis: RedisClient): RedisClient {
    const subscriber = duplicateRedis(redis);
    clients.push(subscriber);
    void subscriber.connect().catch(() => undefined);
    return subscriber;
  }

  async function connect(): Promise<RedisClient> {
    const client = createRedis({
      url: topology.url,
      logger,
      ...(topology.ca === undefined ? {} : { tls: { ca: topology.ca } }),
    });
    clients.push(client);
    expect(await redisReady(client, 10_000)).toBe(true);
    return client;
  }

  it(`shared:redis-topologies — ${name}: limits exact across three replicas, discovery, sessions and bridge forwarding`, async () => {
    const replicas = await Promise.all([connect(), connect(), connect()]);
    const [a, b, c] = replicas;
    // Limits: a key rule and a workspace rule (different keys, one slot by the workspace hash tag).
    const limiters = replicas.map(
      (redis) => new RedisRateLimiter({ redis, logger, replicas: () => 3, timeoutMs: 500 }),
    );
    const rules: LimitRule[] = [
      { key: 'agw:{demo}:k:minute', policy: 'key-minute', kind: 'rate', limit: 7, periodMs: 60_000 },
      {
        key: 'agw:{demo}:w:day',
        policy: 'workspace-tool-calls-day',
        kind: 'quota',
        limit: 1000,
        periodMs: 86_400_000,
      },
    ];
    const verdicts = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (limiters[i % 3] as RedisRateLimiter).admit(rules)),
    );
    expect(verdicts.filter((v) => v.allowed)).toHaveLength(7);
    expect(limiters.every((limiter) => limiter.shared)).toBe(true);

    // Discovery: entries spread over slots, listed on A, read on B, invalidated from B everywhere.
    const caches = [a, b].map(
      (redis) =>
        new RedisDiscoveryCache<{ n: number }>({
          redis,
          subscriber: subscriberOf(redis),
          keyPrefix: 'agw:',
          timeoutMs: 500,
          logger,
          cipher,
        }),
    );
    const [cacheA, cacheB] = caches as [
      RedisDiscoveryCache<{ n: number }>,
      RedisDiscoveryCache<{ n: number }>,
    ];
    for (let n = 0; n < 24; n += 1) await cacheA.set(`demo/up/fp${n}`, { n }, 60_000);
    await cacheA.set('demo/other/fp', { n: -1 }, 60_000);
    expect(await cacheB.get('demo/up/fp5')).toEqual({ n: 5 });
    // Retried only while A's subscriber may still be joining (a test start-up race, not the product's).
    await until('the invalidation to reach replica A', async () => {
      await cacheB.invalidate('demo/up/');
      return (await cacheA.get('demo/up/fp5')) === undefined ? true : undefined;
    });
    for (let n = 0; n < 24; n += 1) {
      expect(await cacheB.get(`demo/up/fp${n}`)).toBeUndefined();
      expect(await cacheA.get(`demo/up/fp${n}`)).toBeUndefined();
    }
    expect(await cacheB.get('demo/other/fp')).toEqual({ n: -1 });

    // Sessions: put on one replica, read on another, forgotten only for the id that failed.
    const sessionsA = new RedisSessionStore({ redis: a, keyPrefix: 'agw:', timeoutMs: 500, cipher, logger });
    const sessionsC = new RedisSessionStore({ redis: c, keyPrefix: 'agw:', timeoutMs: 500, cipher, logger });
    const session = { sessionId: 's-1', protocolVersion: '2025-06-18', capabilities: { tools: {} } };
    await sessionsA.put('k1', session);
    expect(await sessionsC.get('k1')).toEqual(session);
    await sessionsC.forget('k1', 'other');
    expect(await sessionsA.get('k1')).toEqual(session);
    await sessionsC.forget('k1', 's-1');
    expect(await sessionsA.get('k1')).toBeUndefined();

    // Bridge: B forwards a continuation to A, which answers.
    const owner = new RedisBridgeForwarder({
      redis: a,
      subscriber: subscriberOf(a),
      keyPrefix: 'agw:',
      replica: 'A',
      timeoutMs: 500,
      logger,
      cipher,
    });
    const other = new RedisBridgeForwarder({
      redis: b,
      subscriber: subscriberOf(b),
      keyPrefix: 'agw:',
      replica: 'B',
      timeoutMs: 500,
      logger,
      cipher,
    });
    owner.serve((resume) =>
      Promise.resolve({ content: [{ type: 'text', text: `answered ${resume.tool}` }] }),
    );
    const resume = {
      workspace: 'w',
      keyId: 'k',
      tool: 'legacy__ask',
      args: {},
      requestState: 'agwb1.x.y',
      inputResponses: {},
    };
    let answer: Record<string, unknown> | undefined;
    await until('a forwarded continuation to be answered', async () => {
      answer = await other.forward('A', resume, 2000).catch(() => undefined);
      return answer;
    });
    expect(answer).toEqual({ content: [{ type: 'text', text: 'answered legacy__ask' }] });
    await owner.close();
    await other.close();
  }, 60_000);
});
