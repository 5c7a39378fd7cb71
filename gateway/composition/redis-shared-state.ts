// Shared state in Redis (issue 10): the rate limiter, discovery cache, upstream session store,
// elicitation bridge forwarder and change bus of every replica, values encrypted at rest (issue
// 28.8). A module of its own so that the Redis client loads only when Redis is configured (issue 26).
import type { Logger as PinoLogger } from 'pino';
import { resolveSecret, type SecretReader, type SharedStateConfig } from '../config/index.js';
import { RedisRateLimiter } from '../limits/redis-rate-limiter.js';
import { RedisTaskLedger } from '../limits/redis-task-ledger.js';
import { RedisDiscoveryCache } from '../discovery/redis-discovery-cache.js';
import type { CachedToolList } from '../discovery/index.js';
import { ElicitationBridge, RequestStateSeal, TaskIdSeal, type BridgeLimits } from '../mcp/index.js';
import { RedisBridgeForwarder, forgetLegacySealKey } from '../mcp/redis-bridge-forwarder.js';
import { RedisSessionStore } from '../upstream/redis-session-store.js';
import { RedisChangeBus } from '../subscriptions/redis-change-bus.js';
import { createRedis, duplicateRedis, redisReady } from '../shared-state/redis-connection.js';
import { ReplicaRegistry } from '../shared-state/replica-registry.js';
import type { SharedState } from './shared-state.js';
import { ValueCipher } from '../shared-state/value-cipher.js';

export async function openRedisSharedState(options: {
  readonly redisSettings: NonNullable<SharedStateConfig['redis']>;
  readonly encryption: SharedStateConfig['encryption'];
  readonly secrets: SecretReader;
  readonly logger: PinoLogger;
  readonly bridgeLimits: () => BridgeLimits;
}): Promise<SharedState> {
  const { redisSettings, encryption, secrets, logger, bridgeLimits } = options;
  // Secret values in Redis are encrypted (issue 28.8); the schema requires keys with Redis.
  const keys = encryption?.keys ?? [];
  const cipher = new ValueCipher(keys.map((ref) => resolveSecret(ref, secrets)));
  logger.info({ key: cipher.primaryId, keys: keys.length }, 'shared state: values in redis encrypted');
  const tls = redisSettings.tls;
  const redis = createRedis({
    url: resolveSecret(redisSettings.url, secrets),
    logger,
    connectTimeoutMs: redisSettings.connectTimeoutMs,
    ...(tls === undefined
      ? {}
      : {
          tls: {
            ...(tls.ca === undefined ? {} : { ca: resolveSecret(tls.ca, secrets) }),
            ...(tls.servername === undefined ? {} : { servername: tls.servername }),
          },
        }),
  });
  const ready = await redisReady(redis, redisSettings.connectTimeoutMs);
  logger.info(
    { ready },
    ready ? 'shared state: redis connected' : 'shared state: redis not reachable yet; using local state',
  );
  const registry = new ReplicaRegistry(redis, `${redisSettings.keyPrefix}replicas`);
  registry.start();
  const limiter = new RedisRateLimiter({
    redis,
    logger,
    timeoutMs: redisSettings.commandTimeoutMs,
    replicas: () => registry.replicas(),
  });
  const subscriber = duplicateRedis(redis);
  subscriber.on('error', () => undefined);
  void subscriber.connect().catch(() => undefined);
  const discovery = new RedisDiscoveryCache<CachedToolList>({
    redis,
    subscriber,
    keyPrefix: redisSettings.keyPrefix,
    timeoutMs: redisSettings.commandTimeoutMs,
    logger,
    cipher,
  });
  const bridge = new ElicitationBridge({
    seal: new RequestStateSeal(cipher.derive('requestState seal')),
    limits: bridgeLimits,
    forwarder: new RedisBridgeForwarder({
      redis,
      subscriber,
      keyPrefix: redisSettings.keyPrefix,
      replica: registry.id,
      timeoutMs: redisSettings.commandTimeoutMs,
      logger,
      cipher,
    }),
  });
  forgetLegacySealKey(redis, redisSettings.keyPrefix);
  const sessions = new RedisSessionStore({
    redis,
    keyPrefix: redisSettings.keyPrefix,
    timeoutMs: redisSettings.commandTimeoutMs,
    cipher,
    logger,
  });
  sessions.startRekeying();
  const changes = new RedisChangeBus({
    redis,
    subscriber,
    keyPrefix: redisSettings.keyPrefix,
    cipher,
    logger,
  });
  return {
    limiter,
    discovery,
    bridge,
    taskSeal: new TaskIdSeal(cipher.derive('task id seal')),
    taskLedger: new RedisTaskLedger({
      redis,
      logger,
      keyPrefix: redisSettings.keyPrefix,
      cipher,
      timeoutMs: redisSettings.commandTimeoutMs,
    }),
    changes,
    sessions,
    // Connected is not enough: a stalled Redis keeps its socket; the limiter's last answer tells.
    status: () => (redis.status === 'ready' && limiter.shared ? 'redis' : 'redis-unavailable'),
    async close() {
      discovery.close();
      changes.close();
      sessions.stop();
      await registry.stop();
      subscriber.disconnect();
      redis.disconnect();
    },
  };
}
