export { generateKey, parseKey, hashKey, redactedKey, KEY_PREFIX } from './api-key-format.js';
export type { GeneratedKey, ParsedKey } from './api-key-format.js';
export { authenticate } from './authenticate.js';
export type { AuthOutcome, AuthFailureReason } from './authenticate.js';
export { canSeeSource, canSeeTool, hasAccess, matchesPattern, matchesAny } from './permissions.js';
export { principalFor } from './principal.js';
export type { Principal } from './principal.js';
export type { OidcIdentity } from './principal.js';
export { authenticateBearer } from './bearer-authentication.js';
export type { BearerOutcome } from './bearer-authentication.js';
export { OAuthAuthenticator } from './oauth-authenticator.js';
export type {
  OAuthAuthenticatorOptions,
  OAuthOutcome,
  OAuthFailure,
  ReachFetch,
} from './oauth-authenticator.js';
export {
  METADATA_PATH,
  insufficientScopeChallenge,
  metadataUrl,
  unauthorizedChallenge,
} from './bearer-challenge.js';
export {
  BY_AUDIENCE,
  SHARED_TARGET,
  WORKSPACE_MCP_ROUTE,
  identityWorkspace,
  pathResourceUri,
  protectedResourceMetadata,
  resourceOf,
  workspaceResourceUri,
} from './protected-resource.js';
export type { ResourceTarget } from './protected-resource.js';
export { identityKeyId } from './identity-mapping.js';
export { forgetCallerToken } from './caller-token.js';
