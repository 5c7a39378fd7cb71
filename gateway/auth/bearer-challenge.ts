// What the gateway tells OAuth clients (issue 29; RFC 6750 §3, RFC 9728 §5, MCP authorization): the
// URL of its protected-resource metadata (the documents: protected-resource.ts), and the `WWW-Authenticate`
// challenges of a 401 (no credential, or a bad one) and of a 403 step-up (more scopes needed).
// Only values from the config and the verified token appear here, never anything else the caller
// sent, and only characters a header can carry (challenge-header.ts).
import type { GatewayConfig } from '../config/index.js';
import { quotedValue, scopeParameter } from './challenge-header.js';
import { firstChallengeScopes } from './challenge-scopes.js';
import { resourceOf, resourceWorkspace } from './protected-resource.js';

export const METADATA_PATH = '/.well-known/oauth-protected-resource';

/** Where clients find the metadata (RFC 9728 §3.1): the well-known path inserted before the
 * resource's path for the MCP endpoint (`…/.well-known/oauth-protected-resource/mcp`), the root
 * form for the REST endpoints. */
export function metadataUrl(resource: string, face: 'mcp' | 'rest'): string {
  const url = new URL(resource);
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.origin}${METADATA_PATH}${face === 'mcp' ? path : ''}`;
}

/** Quoted parameter values never carry a character a header cannot (challenge-header.ts). */
const quoted = quotedValue;

/** The 401 challenge when OAuth is on: metadata URL, `invalid_token` when a credential was
 * presented, and the scopes a client should ask for first (challenge-scopes.ts: the least the
 * addressed resource's workspace admits with). `resource` is the resource the request addressed (a
 * workspace's, on /w/<name>/mcp); the shared one by default. */
export function unauthorizedChallenge(
  config: GatewayConfig,
  face: 'mcp' | 'rest',
  presented: { readonly description: string } | undefined,
  resource = resourceOf(config),
): string | undefined {
  if (resource === undefined || config.oauth === undefined) return undefined;
  const parts = [`Bearer realm="agent-gateway"`, `resource_metadata=${quoted(metadataUrl(resource, face))}`];
  if (presented !== undefined)
    parts.push(`error="invalid_token"`, `error_description=${quoted(presented.description)}`);
  const scope = scopeParameter(firstChallengeScopes(config, resourceWorkspace(config, resource)));
  if (scope !== undefined) parts.push(scope);
  return parts.join(', ');
}

/** The 403 step-up challenge (MCP authorization, "insufficient scope"): every scope the operation
 * needs, in one challenge. A workspace resource's metadata is named in its path-suffixed form on
 * every face (a REST route has no workspace path of its own). */
export function insufficientScopeChallenge(
  config: GatewayConfig,
  scopes: readonly string[],
  face: 'mcp' | 'rest',
  workspaceResource?: string,
): string {
  const metadata =
    workspaceResource === undefined
      ? metadataUrl(resourceOf(config) ?? '', face)
      : metadataUrl(workspaceResource, 'mcp');
  // The token's own scopes are in here too: only scope tokens that fit a header are named.
  const scope = scopeParameter(scopes);
  return [
    `Bearer realm="agent-gateway"`,
    `error="insufficient_scope"`,
    ...(scope === undefined ? [] : [scope]),
    `resource_metadata=${quoted(metadata)}`,
    `error_description="This operation needs write access; sign in again with the scopes named here."`,
  ].join(', ');
}
