// The one Redis connection of a gateway replica (issue 10): one server, a Sentinel-managed master
// or a Cluster (redis-target.ts), with TLS when the URL says rediss:// or `tls` is set. Commands are
// never queued while disconnected (`enableOfflineQueue: false`): a command that cannot be sent fails
// at once and its caller falls back to local state, instead of running late and counting twice.
// ioredis reconnects on its own with capped backoff; `ready()` waits for the first connection with
// a deadline.
import { Cluster, Redis } from 'ioredis';
import type { Logger } from '../telemetry/logger.js';
import { parseRedisTarget } from './redis-target.js';

/** Any client the shared-state adapters use: a single connection or a Cluster. */
export type RedisClient = Redis | Cluster;

export interface RedisTls {
  /** PEM bundle of the CA that signed the server certificate (default: the system CAs). */
  readonly ca?: string;
  /** The name to check the certificate against, when it differs from the host connected to. */
  readonly servername?: string;
}

export interface RedisConnectionOptions {
  readonly url: string;
  readonly logger: Logger;
  readonly connectTimeoutMs?: number;
  readonly tls?: RedisTls;
}

export function createRedis(options: RedisConnectionOptions): RedisClient {
  const target = parseRedisTarget(options.url);
  const tlsWanted = options.tls !== undefined || (target.mode === 'standalone' && target.tls);
  const tls = tlsWanted
    ? {
        ...(options.tls?.ca === undefined ? {} : { ca: options.tls.ca }),
        ...(options.tls?.servername === undefined ? {} : { servername: options.tls.servername }),
      }
    : undefined;
  const settings = {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    lazyConnect: true,
    connectTimeout: options.connectTimeoutMs ?? 2000,
    retryStrategy: (attempt: number) => Math.min(50 * 2 ** attempt, 2000),
    ...(tls === undefined ? {} : { tls }),
  };
  let redis: RedisClient;
  if (target.mode === 'standalone') redis = new Redis(target.url, settings);
  else if (target.mode === 'sentinel')
    redis = new Redis({
      ...settings,
      sentinels: target.sentinels.map((node) => ({ ...node })),
      name: target.masterName,
      db: target.db,
      ...(target.username === undefined ? {} : { username: target.username }),
      ...(target.password === undefined ? {} : { password: target.password }),
      sentinelRetryStrategy: (attempt: number) => Math.min(50 * 2 ** attempt, 2000),
    });
  else {
    const cluster = {
      enableOfflineQueue: false,
      lazyConnect: true,
      clusterRetryStrategy: (attempt: number) => Math.min(50 * 2 ** attempt, 2000),
      redisOptions: {
        ...settings,
        ...(target.username === undefined ? {} : { username: target.username }),
        ...(target.password === undefined ? {} : { password: target.password }),
      },
    };
    redis = new Cluster(
      target.nodes.map((node) => ({ ...node })),
      cluster,
    );
  }
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

/** A second connection to the same Redis (pub/sub needs its own). */
export function duplicateRedis(redis: RedisClient): RedisClient {
  return redis instanceof Cluster ? redis.duplicate() : redis.duplicate();
}

/** Every master of the deployment (one client, or each master node of a Cluster): for commands
 * that look at one node's keyspace only, such as SCAN. */
export function masters(redis: RedisClient): Redis[] {
  return redis instanceof Cluster ? redis.nodes('master') : [redis];
}

/** Connects and waits until commands can be sent, or the deadline passes (then serves locally). */
export async function redisReady(redis: RedisClient, timeoutMs = 2000): Promise<boolean> {
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
