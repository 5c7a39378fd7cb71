// What the gateway tells OAuth clients (issue 29; RFC 6750 §3, RFC 9728 §5, MCP authorization): the
// URL of its protected-resource metadata, the metadata document, and the `WWW-Authenticate`
// challenges of a 401 (no credential, or a bad one) and of a 403 step-up (more scopes needed).
// Only values from the config and the verified token appear here, never anything else the caller
// sent, and only characters a header can carry (challenge-header.ts).
import type { GatewayConfig } from '../config/index.js';
import { canonicalResource } from '../config/oauth-schema.js';
import { quotedValue, scopeParameter } from './challenge-header.js';
import { firstChallengeScopes } from './challenge-scopes.js';

export const METADATA_PATH = '/.well-known/oauth-protected-resource';

/** The canonical resource URI, when the gateway is a resource server. */
export function resourceOf(config: GatewayConfig): string | undefined {
  return config.oauth === undefined ? undefined : canonicalResource(config.oauth, config.server);
}

/** Where clients find the metadata (RFC 9728 §3.1): the well-known path inserted before the
 * resource's path for the MCP endpoint (`…/.well-known/oauth-protected-resource/mcp`), the root
 * form for the REST endpoints. */
export function metadataUrl(resource: string, face: 'mcp' | 'rest'): string {
  const url = new URL(resource);
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.origin}${METADATA_PATH}${face === 'mcp' ? path : ''}`;
}

const metadataCache = new WeakMap<GatewayConfig, Readonly<Record<string, unknown>>>();

/** The RFC 9728 document: the resource, every issuer a workspace trusts, the advertised scopes. */
export function protectedResourceMetadata(
  config: GatewayConfig,
): Readonly<Record<string, unknown>> | undefined {
  const resource = resourceOf(config);
  if (resource === undefined || config.oauth === undefined) return undefined;
  let document = metadataCache.get(config);
  if (document === undefined) {
    const issuers = new Set(
      config.workspaces.flatMap((w) => w.identity?.issuers.map((issuer) => issuer.issuer) ?? []),
    );
    document = {
      resource,
      authorization_servers: [...issuers].sort(),
      ...(config.oauth.scopesSupported.length === 0
        ? {}
        : { scopes_supported: config.oauth.scopesSupported }),
      bearer_methods_supported: ['header'],
      resource_name: 'Agent Gateway',
    };
    metadataCache.set(config, document);
  }
  return document;
}

/** Quoted parameter values never carry a character a header cannot (challenge-header.ts). */
const quoted = quotedValue;

/** The 401 challenge when OAuth is on: metadata URL, `invalid_token` when a credential was
 * presented, and the scopes a client should ask for first (challenge-scopes.ts). */
export function unauthorizedChallenge(
  config: GatewayConfig,
  face: 'mcp' | 'rest',
  presented: { readonly description: string } | undefined,
): string | undefined {
  const resource = resourceOf(config);
  if (resource === undefined || config.oauth === undefined) return undefined;
  const parts = [`Bearer realm="agent-gateway"`, `resource_metadata=${quoted(metadataUrl(resource, face))}`];
  if (presented !== undefined)
    parts.push(`error="invalid_token"`, `error_description=${quoted(presented.description)}`);
  const scope = scopeParameter(firstChallengeScopes(config));
  if (scope !== undefined) parts.push(scope);
  return parts.join(', ');
}

/** The 403 step-up challenge (MCP authorization, "insufficient scope"): every scope the operation
 * needs, in one challenge. */
export function insufficientScopeChallenge(
  config: GatewayConfig,
  scopes: readonly string[],
  face: 'mcp' | 'rest',
): string {
  const resource = resourceOf(config) ?? '';
  // The token's own scopes are in here too: only scope tokens that fit a header are named.
  const scope = scopeParameter(scopes);
  return [
    `Bearer realm="agent-gateway"`,
    `error="insufficient_scope"`,
    ...(scope === undefined ? [] : [scope]),
    `resource_metadata=${quoted(metadataUrl(resource, face))}`,
    `error_description="This operation needs write access; sign in again with the scopes named here."`,
  ].join(', ');
}
