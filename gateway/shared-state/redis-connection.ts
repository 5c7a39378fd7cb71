// The one Redis connection of a gateway replica (issue 10). Commands are never queued while
// disconnected (`enableOfflineQueue: false`): a command that cannot be sent fails at once and its
// caller falls back to local state, instead of running late and counting twice. ioredis reconnects
// on its own with capped backoff; `ready()` waits for the first connection with a deadline.
import { Redis } from 'ioredis';
import type { Logger } from '../telemetry/logger.js';

export interface RedisConnectionOptions {
  readonly url: string;
  readonly logger: Logger;
  readonly connectTimeoutMs?: number;
}

export function createRedis(options: RedisConnectionOptions): Redis {
  const settings = {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    lazyConnect: true,
    connectTimeout: options.connectTimeoutMs ?? 2000,
    retryStrategy: (attempt: number) => Math.min(50 * 2 ** attempt, 2000),
  };
  const redis = new Redis(options.url, settings);
  let down = false;
  redis.on('error', (error: Error) => {
    // Only the kind of failure: messages can carry the URL, and with it a password.
    if (!down) options.logger.warn({ err: error.name }, 'redis connection failed; using local state');
    down = true;
  });
  redis.on('ready', () => {
    if (down) options.logger.info({}, 'redis connection restored');
    down = false;
  });
  return redis;
}

/** Connects and waits until commands can be sent, or the deadline passes (then serves locally). */
export async function redisReady(redis: Redis, timeoutMs = 2000): Promise<boolean> {
  if (redis.status === 'ready') return true;
  if (redis.status === 'wait') void redis.connect().catch(() => undefined);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      redis.off('ready', onReady);
      resolve(false);
    }, timeoutMs);
    const onReady = () => {
      clearTimeout(timer);
      resolve(true);
    };
    redis.once('ready', onReady);
  });
}
