// The shared-state ports of a replica (issue 10), gathered in one aggregate: Redis-backed when
// configured (redis-shared-state.ts), else this replica's memory (open-shared-state.ts). Composition,
// not a port of its own: each feature declares its port and keeps its adapters in its own room.
import type { CachedToolList, DiscoveryCache } from '../discovery/index.js';
import type { RateLimiter } from '../limits/rate-limiter.js';
import type { TaskLedger } from '../limits/task-ledger.js';
import type { ElicitationBridge, TaskIdSeal } from '../mcp/index.js';
import type { SharedStateStatus } from '../rest/sources-route.js';
import type { ChangeBus } from '../subscriptions/index.js';
import type { SessionStore } from '../upstream/session-store.js';

export interface SharedState {
  readonly limiter: RateLimiter;
  readonly discovery: DiscoveryCache<CachedToolList>;
  readonly sessions: SessionStore;
  readonly bridge: ElicitationBridge;
  /** Seals task ids (issue 43): with Redis, keys every replica derives from the shared Secrets. */
  readonly taskSeal: TaskIdSeal;
  /** The keys' task places and held results (issue 43): with Redis, one count for every replica. */
  readonly taskLedger: TaskLedger;
  readonly changes: ChangeBus;
  readonly status: () => SharedStateStatus;
  close(): Promise<void>;
}
