export { connectUpstream } from './connect-upstream.js';
export type {
  UpstreamConnection,
  ConnectDeps,
  CallOptions,
  ToolList,
  ItemList,
  CompleteParams,
  UpstreamEvents,
  LegacyTaskCalls,
} from './upstream-connection.js';
export { UpstreamPool } from './upstream-pool.js';
export { isPerCaller } from './per-caller.js';
export type { Connector, ListChangedListener, ResourceUpdatedListener } from './upstream-pool.js';
export type { ResourceSubscriber } from './resource-subscriptions.js';
export { classifyUpstreamError } from './classify-upstream-error.js';
export { describeUpstreamFailure } from './describe-upstream-failure.js';
export { BreakerRegistry, countsAgainstSource } from './breaker-registry.js';
export type { BreakerState } from './breaker-registry.js';
export { withSessionRecovery, isSessionLost } from './session-recovery.js';
export { createModernRelay } from './modern-relay.js';
export { WorkloadWakers, WorkloadWakeError } from './workload-waker.js';
export { runAsBackground } from './background-work.js';
export { ToolListRefusedError, type SkippedUpstreamTool } from './tool-list-reader.js';
export {
  UpstreamHttpError,
  UpstreamProtocolError,
  UpstreamResponseTooLargeError,
} from './upstream-answer-errors.js';
export type { Relay, RelayRequest } from './modern-relay.js';
export { UpstreamRpcError } from './upstream-rpc-error.js';
export { bridgeableCapabilities, LEGACY_CALLER_CAPABILITIES } from './bridged-connection.js';
export { gatewayUiCapability, uiCapabilityOf } from './apps-capability.js';
export type { BridgedConnection, CallNotices, ServerRequestHandler } from './bridged-connection.js';
export { UpstreamTokens, authorizedFetch, staticTokenSource } from './token-source.js';
export type { TokenSource, TokenTarget, UpstreamTokensOptions } from './token-source.js';
export { UpstreamTokenError } from '../connections/index.js';
export {
  runAsCaller,
  upstreamCallerOf,
  UpstreamIdentityRequiredError,
  type UpstreamCaller,
  type PrincipalIdentity,
} from './upstream-caller.js';
