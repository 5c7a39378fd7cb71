export { generateKey, parseKey, hashKey, redactedKey, KEY_PREFIX } from './api-key-format.js';
export type { GeneratedKey, ParsedKey } from './api-key-format.js';
export { authenticate } from './authenticate.js';
export type { AuthOutcome, AuthFailureReason } from './authenticate.js';
export { canSeeSource, canSeeTool, hasAccess, matchesPattern, matchesAny } from './permissions.js';
export { principalFor } from './principal.js';
export type { Principal } from './principal.js';
