// The credential port (D22): one Bearer header, either an API key (the `agw_` prefix: checked as
// before, byte for byte) or, when the gateway is an OAuth resource server, an access token checked
// by the OAuth authenticator. Both end in the same Principal. Tokens are read from the
// Authorization header only (never a query string or cookie). A verified OAuth token is sealed onto
// its principal for token exchange only (caller-token.ts). On a workspace's own endpoint
// (/w/<name>/mcp) only that workspace's credentials count: another workspace's key is refused
// exactly like an unknown one, so the answer never tells which workspaces exist.
import type { GatewayConfig } from '../config/index.js';
import { KEY_PREFIX } from './api-key-format.js';
import { authenticate, type AuthFailureReason } from './authenticate.js';
import { sealCallerToken } from './caller-token.js';
import type { OAuthAuthenticator, OAuthFailure } from './oauth-authenticator.js';
import type { Principal } from './principal.js';
import type { ResourceTarget } from './protected-resource.js';

export type BearerOutcome =
  | { readonly ok: true; readonly principal: Principal }
  | { readonly ok: false; readonly kind: 'key'; readonly reason: AuthFailureReason }
  | { readonly ok: false; readonly kind: 'oauth'; readonly reason: OAuthFailure };

const BEARER = /^Bearer +(\S+) *$/i;

export async function authenticateBearer(
  authorization: string | undefined,
  config: GatewayConfig,
  now: Date,
  oauth: OAuthAuthenticator | undefined,
  face: 'mcp' | 'rest',
  target: ResourceTarget,
): Promise<BearerOutcome> {
  const token = authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
  if (
    config.oauth === undefined ||
    oauth === undefined ||
    token === undefined ||
    token.startsWith(KEY_PREFIX)
  ) {
    const only = target.kind === 'workspace' ? target.name : undefined;
    const outcome = authenticate(authorization, config, now, only);
    return outcome.ok ? outcome : { ok: false, kind: 'key', reason: outcome.reason };
  }
  const outcome = await oauth.authenticate(token, config, now, face, target);
  if (outcome.ok) return { ok: true, principal: sealCallerToken(outcome.principal, token) };
  return { ok: false, kind: 'oauth', reason: outcome.reason };
}
