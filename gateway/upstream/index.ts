export { connectUpstream } from './upstream-connection.js';
export type { UpstreamConnection, ConnectDeps, CallOptions } from './upstream-connection.js';
export { UpstreamPool } from './upstream-pool.js';
export type { Connector } from './upstream-pool.js';
export { classifyUpstreamError } from './classify-upstream-error.js';
export { BreakerRegistry, countsAgainstSource } from './breaker-registry.js';
export type { BreakerState } from './breaker-registry.js';
export { withSessionRecovery, isSessionLost } from './session-recovery.js';
