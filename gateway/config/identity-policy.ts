// Applies the identity part of the tenant policy (identity-policy-schema.ts, D24) to one workspace's
// identity section: an issuer the policy does not list for the workspace's namespace, or a key
// source (JWKS, introspection endpoint) other than the one the policy fixes, refuses the whole
// section; otherwise the policy's key sources fill what the tenant left out and its claim conditions
// are ANDed into every rule for that issuer. Used by the operator before it renders and by the
// gateways when they load a workspace (the file's policy block, or the Kubernetes base config's).
import { deepFreeze } from './config-loader.js';
import type { GatewayConfig } from './config-schema.js';
import type { WorkspaceConfig } from './workspace-schema.js';
import type { IdentityPolicy, IssuerPolicy } from './identity-policy-schema.js';
import type { ClaimCondition } from './oauth-schema.js';

/** The parts of an issuer declaration the policy decides (the contract's, or the operator's draft). */
export interface IssuerShape {
  readonly issuer: string;
  readonly jwksUri?: string | undefined;
  readonly introspection?: { readonly endpoint?: string | undefined } | undefined;
}

export interface RuleShape {
  readonly issuer: string;
  readonly when?: readonly ClaimCondition[] | undefined;
}

export interface IdentityShape<I extends IssuerShape, R extends RuleShape> {
  readonly issuers: readonly I[];
  readonly rules: readonly R[];
}

export interface IdentityRefusal {
  readonly reason: 'IssuerNotAllowed' | 'KeySourceNotAllowed';
  /** The refused issuer's index in `issuers`. */
  readonly index: number;
  readonly field: 'issuer' | 'jwksUri' | 'introspection.endpoint';
  /** Names the issuer and the namespace; never a claim value of the policy. */
  readonly message: string;
}

export type IdentityBound<I extends IssuerShape, R extends RuleShape> =
  | { readonly identity: { readonly issuers: I[]; readonly rules: R[] } }
  | { readonly refused: IdentityRefusal };

/** The policy entry that lets `namespace` trust `issuer`, if any. */
export function issuerPolicyFor(
  policy: IdentityPolicy,
  issuer: string,
  namespace: string,
): IssuerPolicy | undefined {
  return policy.issuers.find(
    (entry) =>
      entry.issuer === issuer && (entry.namespaces.includes('*') || entry.namespaces.includes(namespace)),
  );
}

export function boundIdentity<I extends IssuerShape, R extends RuleShape>(
  identity: IdentityShape<I, R>,
  policy: IdentityPolicy,
  namespace: string,
): IdentityBound<I, R> {
  const entries = new Map<string, IssuerPolicy>();
  const issuers: I[] = [];
  for (const [index, declared] of identity.issuers.entries()) {
    const entry = issuerPolicyFor(policy, declared.issuer, namespace);
    if (entry === undefined)
      return {
        refused: {
          reason: 'IssuerNotAllowed',
          index,
          field: 'issuer',
          message: `issuer ${declared.issuer} is not one the tenant policy lets namespace ${namespace} trust (policy.identity.issuers)`,
        },
      };
    const refused = keySourceRefusal(declared, entry, index);
    if (refused !== undefined) return { refused };
    entries.set(declared.issuer, entry);
    issuers.push(withPolicySources(declared, entry));
  }
  const rules = identity.rules.map((rule) => {
    const entry = entries.get(rule.issuer);
    const added = entry === undefined ? [] : claimsFor(entry, namespace);
    const when = rule.when ?? [];
    const missing = added.filter((condition) => !when.some((c) => sameCondition(c, condition)));
    return missing.length === 0 ? rule : { ...rule, when: [...when, ...missing] };
  });
  return { identity: { issuers, rules } };
}

/** A tenant never picks where an issuer's keys come from: the admin's fixed URL (repeated or left
 * out), or the issuer's own metadata when the admin fixed none. Otherwise a tenant could declare
 * another tenant's issuer with a key set of its own and mint that issuer's identities. */
function keySourceRefusal(
  declared: IssuerShape,
  entry: IssuerPolicy,
  index: number,
): IdentityRefusal | undefined {
  const refuse = (
    field: IdentityRefusal['field'],
    what: string,
    fixed: string | undefined,
  ): IdentityRefusal => ({
    reason: 'KeySourceNotAllowed',
    index,
    field,
    message:
      fixed === undefined
        ? `the tenant policy fixes no ${what} for issuer ${declared.issuer}: it comes from the issuer's own metadata, so leave it out`
        : `differs from the ${what} the tenant policy fixes for issuer ${declared.issuer} (${fixed}); leave it out to use that one`,
  });
  if (declared.jwksUri !== undefined && declared.jwksUri !== entry.jwksUri)
    return refuse('jwksUri', 'JWKS', entry.jwksUri);
  const endpoint = declared.introspection?.endpoint;
  if (endpoint !== undefined && endpoint !== entry.introspection?.endpoint)
    return refuse('introspection.endpoint', 'introspection endpoint', entry.introspection?.endpoint);
  return undefined;
}

function withPolicySources<I extends IssuerShape>(declared: I, entry: IssuerPolicy): I {
  let issuer = declared;
  if (entry.jwksUri !== undefined && issuer.jwksUri === undefined)
    issuer = { ...issuer, jwksUri: entry.jwksUri };
  const fixed = entry.introspection?.endpoint;
  if (
    fixed !== undefined &&
    issuer.introspection !== undefined &&
    issuer.introspection.endpoint === undefined
  )
    issuer = { ...issuer, introspection: { ...issuer.introspection, endpoint: fixed } };
  return issuer;
}

function claimsFor(entry: IssuerPolicy, namespace: string): ClaimCondition[] {
  return [...(entry.claims['*'] ?? []), ...(namespace === '*' ? [] : (entry.claims[namespace] ?? []))];
}

function sameCondition(a: ClaimCondition, b: ClaimCondition): boolean {
  if (a.claim !== b.claim) return false;
  if ('equals' in a) return 'equals' in b && a.equals === b.equals;
  return 'contains' in b && a.contains === b.contains;
}

/** A workspace as a gateway serves it under the policy: its identity section bounded, or dropped
 * when refused (the rest of the workspace is served: API keys and sources are not the policy's
 * business here). The namespace is the workspace's, or its name in a file without one. */
export function workspaceUnderPolicy(
  workspace: WorkspaceConfig,
  policy: IdentityPolicy,
): { readonly workspace: WorkspaceConfig; readonly refused?: IdentityRefusal } {
  if (workspace.identity === undefined) return { workspace };
  const bound = boundIdentity(workspace.identity, policy, workspace.namespace ?? workspace.name);
  if ('refused' in bound) {
    const { identity: _refused, ...rest } = workspace;
    return { workspace: deepFreeze({ ...rest }), refused: bound.refused };
  }
  return { workspace: deepFreeze({ ...workspace, identity: bound.identity }) };
}

/** Every workspace of a config under the policy, and the refusals by workspace name. */
export function configUnderPolicy(
  config: GatewayConfig,
  policy: IdentityPolicy,
): { readonly config: GatewayConfig; readonly refused: ReadonlyMap<string, IdentityRefusal> } {
  const refused = new Map<string, IdentityRefusal>();
  const workspaces = config.workspaces.map((workspace) => {
    const result = workspaceUnderPolicy(workspace, policy);
    if (result.refused !== undefined) refused.set(workspace.name, result.refused);
    return result.workspace;
  });
  return { config: deepFreeze({ ...config, workspaces }), refused };
}

/** The log fields of a refusal: the field at fault and why (issuer and namespace, no claim value). */
export function refusalFields(workspace: string, refusal: IdentityRefusal): Record<string, string> {
  return {
    workspace,
    reason: refusal.reason,
    problem: `identity.issuers[${refusal.index}].${refusal.field}: ${refusal.message}`,
  };
}

export const IDENTITY_REFUSED_LOG =
  'workspace identity refused by the tenant policy; served without OAuth sign-in (API keys unaffected)';
