// Opens the shared state of a replica (issue 10): Redis-backed when configured, else this replica's
// memory. The Redis client and everything that uses it load only when Redis is configured (issue
// 26), hence the dynamic import of redis-shared-state.ts.
import type { Logger as PinoLogger } from 'pino';
import type { SecretReader, SharedStateConfig } from '../config/index.js';
import { MemoryDiscoveryCache, type CachedToolList } from '../discovery/index.js';
import { MemoryRateLimiter } from '../limits/rate-limiter.js';
import { MemoryTaskLedger } from '../limits/task-ledger.js';
import { ElicitationBridge, TaskIdSeal, type BridgeLimits } from '../mcp/index.js';
import { MemoryChangeBus } from '../subscriptions/index.js';
import { LocalSessionStore } from '../upstream/session-store.js';
import type { SharedState } from './shared-state.js';

export async function openSharedState(
  settings: SharedStateConfig,
  secrets: SecretReader,
  logger: PinoLogger,
  bridgeLimits: () => BridgeLimits,
): Promise<SharedState> {
  const redisSettings = settings.redis;
  if (redisSettings === undefined)
    return {
      limiter: new MemoryRateLimiter(),
      discovery: new MemoryDiscoveryCache<CachedToolList>(),
      sessions: new LocalSessionStore(),
      bridge: new ElicitationBridge({ limits: bridgeLimits }),
      taskSeal: new TaskIdSeal(),
      taskLedger: new MemoryTaskLedger(),
      changes: new MemoryChangeBus(),
      status: () => 'local',
      close: () => Promise.resolve(),
    };
  const { openRedisSharedState } = await import('./redis-shared-state.js');
  return openRedisSharedState({
    redisSettings,
    encryption: settings.encryption,
    secrets,
    logger,
    bridgeLimits,
  });
}
