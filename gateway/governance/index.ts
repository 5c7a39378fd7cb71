export { GuardrailHooks } from './guardrail-hooks.js';
export type { GuardOutcome, GuardQuestion, GuardrailHooksDeps, HookFailure } from './guardrail-hooks.js';
export type { HookTarget } from './hook-wire.js';
export {
  HOOK_HEADER,
  MAX_ANSWER_BYTES,
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
  WIRE_VERSION,
  signature,
} from './hook-wire.js';
export { maskSecretsFor, maskText, maskValue } from './secret-masking.js';
export type { MaskCounts } from './secret-masking.js';
export { SECRET_KINDS } from './secret-patterns.js';
export type { SecretKind } from './secret-patterns.js';
export { decideCall } from './call-policy.js';
export type { PolicyDenial } from './call-policy.js';
export { compiledPolicies, POLICY_STEP_BUDGET } from './policy-compiler.js';
