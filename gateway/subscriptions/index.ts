export { MemoryChangeBus, isChangeEvent } from './change-bus.js';
export type { ChangeBus, ChangeEvent, ChangeListener, ListKind } from './change-bus.js';
export { RedisChangeBus } from './redis-change-bus.js';
export type { RedisChangeBusOptions } from './redis-change-bus.js';
export { NotificationStream } from './notification-stream.js';
export type {
  EndReason,
  StreamFace,
  StreamLimits,
  StreamSink,
  StreamOptions,
} from './notification-stream.js';
export { SubscriptionHub } from './subscription-hub.js';
export type { HubDeps, OpenRefusal } from './subscription-hub.js';
export type { WatchOutcome } from './upstream-watches.js';
