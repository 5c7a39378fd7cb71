export { ReachPolicy, describeDenial, isWithin } from './reach-policy.js';
export type { ReachDecision, ReachDenial, ReachScope, OwnAddresses } from './reach-policy.js';
export { ReachDeniedError, findReachDenied } from './reach-denied-error.js';
export { NetworkGuard } from './network-guard.js';
export { AuthorizationServerPool } from './authorization-server-pool.js';
export {
  AUTHORIZATION_SERVER_IDLE_MS,
  AUTHORIZATION_SERVER_STALL_MS,
} from './authorization-server-bounds.js';
export type { AliasResolver, Resolver, ResolvedTarget, WorkloadTarget } from './network-guard.js';
export { confineRoot, readConfined } from './confined-files.js';
export type { FileConfinement, ConfinedRead } from './confined-files.js';
export { TenantReach, discoverOwnAddresses, effectivePolicy } from './tenant-reach.js';
export { normaliseAddress, AddressSet } from './address-set.js';
export { cidrContains, cidrOverlaps, PRIVATE_CIDRS } from './cidr-blocks.js';
