// Which protected resource a request addresses (issue 37, D24; RFC 8707, RFC 9728). The shared
// resource R (`oauth.resource`, else publicUrl + /mcp) is served at /mcp and /agent/*, and admits
// only the admin's `oauth.defaultWorkspace`; every workspace w is a resource of its own,
// R_w = <base>/w/<w>/mcp, where <base> is R with one trailing `/mcp` (and trailing slashes) taken
// off. A token's audience selects the one workspace whose declarations verify it and whose rules
// admit it, so no tenant's declaration is ever consulted for another tenant's callers.
import { NAME, type GatewayConfig, type WorkspaceConfig } from '../config/index.js';
import { canonicalResource } from '../config/oauth-schema.js';

/** The route of a workspace's own MCP endpoint (same handler and methods as /mcp). */
export const WORKSPACE_MCP_ROUTE = '/w/:workspace/mcp';

/** What a request addresses: /mcp (the shared resource), /w/<name>/mcp (a workspace resource), or a
 * REST route, which takes the one workspace resource a token's `aud` names, else the shared one. */
export type ResourceTarget =
  | { readonly kind: 'shared' }
  | { readonly kind: 'workspace'; readonly name: string }
  | { readonly kind: 'by-audience' };

export const SHARED_TARGET: ResourceTarget = { kind: 'shared' };
export const BY_AUDIENCE: ResourceTarget = { kind: 'by-audience' };

/** The canonical (shared) resource URI, when the gateway is a resource server. */
export function resourceOf(config: GatewayConfig): string | undefined {
  return config.oauth === undefined ? undefined : canonicalResource(config.oauth, config.server);
}

/** <base>: R without one trailing `/mcp` and without trailing slashes. */
function baseOf(resource: string): string {
  return resource
    .replace(/\/+$/, '')
    .replace(/\/mcp$/, '')
    .replace(/\/+$/, '');
}

/** R_w for a workspace name (whether or not it exists). */
export function workspaceResourceUri(config: GatewayConfig, name: string): string | undefined {
  const resource = resourceOf(config);
  return resource === undefined ? undefined : `${baseOf(resource)}/w/${name}/mcp`;
}

/** The resource a request to /w/<name>/mcp addresses, for its challenge: R_w for any name a
 * workspace could have, whether or not one does (the answer depends on the path alone); undefined
 * for a name none can have (an encoded slash, a control character), whose challenge names the
 * shared resource — a caller's text never reaches a header. */
export function pathResourceUri(config: GatewayConfig, name: string): string | undefined {
  return NAME.test(name) ? workspaceResourceUri(config, name) : undefined;
}

/** The workspace `name` when it exists and has an identity section; undefined alike otherwise, so
 * no answer tells "no such workspace" from "no sign-in there". */
export function identityWorkspace(config: GatewayConfig, name: string): WorkspaceConfig | undefined {
  if (config.oauth === undefined) return undefined;
  const workspace = config.workspaces.find((w) => w.name === name);
  return workspace?.identity === undefined ? undefined : workspace;
}

/** The admin's default workspace for the shared resource, when set, present and signing in. */
export function defaultWorkspace(config: GatewayConfig): WorkspaceConfig | undefined {
  const name = config.oauth?.defaultWorkspace;
  return name === undefined ? undefined : identityWorkspace(config, name);
}

/** The workspace a resource URI names (`<base>/w/<name>/mcp`), by name, whether or not it exists. */
function workspaceNamed(config: GatewayConfig, uri: string): string | undefined {
  const resource = resourceOf(config);
  if (resource === undefined) return undefined;
  const prefix = `${baseOf(resource)}/w/`;
  if (!uri.startsWith(prefix) || !uri.endsWith('/mcp')) return undefined;
  const name = uri.slice(prefix.length, -'/mcp'.length);
  return name === '' || name.includes('/') ? undefined : name;
}

/** The workspace whose sign-in a resource URI stands for: a workspace resource's own (existing and
 * signing in), the default workspace for the shared one; undefined otherwise. */
export function resourceWorkspace(config: GatewayConfig, uri: string): WorkspaceConfig | undefined {
  if (uri === resourceOf(config)) return defaultWorkspace(config);
  const name = workspaceNamed(config, uri);
  return name === undefined ? undefined : identityWorkspace(config, name);
}

/** `aud` of a JWT read without verification, only to choose whose declaration verifies it. */
function unverifiedAudiences(token: string): readonly string[] {
  const payload = token.split('.')[1];
  if (payload === undefined) return [];
  try {
    const aud = (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { aud?: unknown } | null)
      ?.aud;
    if (typeof aud === 'string') return [aud];
    return Array.isArray(aud) ? aud.filter((v): v is string => typeof v === 'string') : [];
  } catch {
    return [];
  }
}

/** Where a token is verified and admitted: one workspace and the resource URI its `aud` must hold. */
export type Selection =
  | { readonly ok: true; readonly workspace: WorkspaceConfig; readonly resource: string }
  | { readonly ok: false; readonly reason: 'untrusted-issuer' | 'wrong-audience' };

/** The one workspace whose declarations may verify `token` at `target`: the named one on its own
 * endpoint, the default on the shared resource, and on REST routes the workspace resource the token
 * names (two or more: refused), else the default. An opaque token names nothing readable, so on
 * REST routes it is the default workspace's. */
export function selectWorkspace(token: string, config: GatewayConfig, target: ResourceTarget): Selection {
  let name: string | undefined;
  if (target.kind === 'workspace') name = target.name;
  else if (target.kind === 'by-audience') {
    const named = new Set(
      unverifiedAudiences(token)
        .map((aud) => workspaceNamed(config, aud))
        .filter((n) => n !== undefined),
    );
    if (named.size > 1) return { ok: false, reason: 'wrong-audience' };
    name = [...named][0];
  }
  if (name === undefined) {
    const fallback = defaultWorkspace(config);
    const resource = resourceOf(config);
    return fallback === undefined || resource === undefined
      ? { ok: false, reason: 'untrusted-issuer' }
      : { ok: true, workspace: fallback, resource };
  }
  const workspace = identityWorkspace(config, name);
  const resource = workspaceResourceUri(config, name);
  return workspace === undefined || resource === undefined
    ? { ok: false, reason: 'untrusted-issuer' }
    : { ok: true, workspace, resource };
}

const sharedMetadata = new WeakMap<GatewayConfig, Readonly<Record<string, unknown>>>();
const workspaceMetadata = new WeakMap<GatewayConfig, Map<string, Readonly<Record<string, unknown>>>>();

function metadataDocument(
  config: GatewayConfig,
  resource: string,
  workspace: WorkspaceConfig | undefined,
): Readonly<Record<string, unknown>> {
  const issuers = new Set(workspace?.identity?.issuers.map((issuer) => issuer.issuer) ?? []);
  return {
    resource,
    authorization_servers: [...issuers].sort(),
    ...(config.oauth === undefined || config.oauth.scopesSupported.length === 0
      ? {}
      : { scopes_supported: config.oauth.scopesSupported }),
    bearer_methods_supported: ['header'],
    resource_name: 'Agent Gateway',
  };
}

/** The RFC 9728 document of the shared resource (the default workspace's issuers, none without
 * one) or, given a name, of that workspace's resource (its issuers only; undefined for a workspace
 * that does not exist or has no identity section, alike). */
export function protectedResourceMetadata(
  config: GatewayConfig,
  workspaceName?: string,
): Readonly<Record<string, unknown>> | undefined {
  const resource = resourceOf(config);
  if (resource === undefined) return undefined;
  if (workspaceName === undefined) {
    let document = sharedMetadata.get(config);
    if (document === undefined) {
      document = metadataDocument(config, resource, defaultWorkspace(config));
      sharedMetadata.set(config, document);
    }
    return document;
  }
  const workspace = identityWorkspace(config, workspaceName);
  const uri = workspaceResourceUri(config, workspaceName);
  if (workspace === undefined || uri === undefined) return undefined;
  let documents = workspaceMetadata.get(config);
  if (documents === undefined) {
    documents = new Map();
    workspaceMetadata.set(config, documents);
  }
  let document = documents.get(workspace.name);
  if (document === undefined) {
    document = metadataDocument(config, uri, workspace);
    documents.set(workspace.name, document);
  }
  return document;
}
