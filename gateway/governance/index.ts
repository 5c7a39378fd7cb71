export { decideCall } from './call-policy.js';
export type { PolicyDenial } from './call-policy.js';
export { compiledPolicies, POLICY_STEP_BUDGET } from './policy-compiler.js';
