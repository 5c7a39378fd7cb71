// The identity part of a workspace's plan (issue 29, D22, D24): Workspace spec.identity becomes the
// rendered workspace's `identity`, checked with the gateway's own schema, the identity policy (the
// issuers the admin lets the namespace trust, their fixed key sources and added claim conditions)
// and the tenant reach policy (D19) on every URL the operator can see (issuer, JWKS, introspection
// endpoint), the introspection client secrets copied into the workspace's credentials Secret as
// references. A spec that cannot be used renders no identity at all (fail closed: no OAuth caller
// is admitted, API keys keep working), never part of one; the Workspace's Ready condition says why.
import {
  boundIdentity,
  formatPath,
  WorkspaceSchema,
  type IdentityPolicy,
  type IdentityRefusal,
  type SecretRef,
} from '../../../gateway/config/index.js';
import { invalidSpec } from './invalid-spec.js';
import type { ReachCheck } from './reach-check.js';
import type { SecretKeyRef, WorkspaceIdentityView } from './resource-views.js';
import type { ReadyCondition } from './ready-condition.js';

export interface IdentityPlan {
  /** The rendered workspace's `identity`; absent when the spec could not be used. */
  readonly render?: Readonly<Record<string, unknown>>;
  readonly condition: ReadyCondition;
  /** Issuers the gateways trust for this workspace (0 when not used). */
  readonly issuers: number;
}

/** Where introspection secrets go in the credentials Secret: `cred.workspace.identity.issuerN.clientSecret.<hash>`. */
export const IDENTITY_CREDENTIAL_SOURCE = 'workspace';
const secretField = (index: number): string => `identity.issuer${index}.clientSecret`;

type MakeRef = (field: string, ref: SecretKeyRef) => SecretRef | ReadyCondition;

const IdentityContractSchema = WorkspaceSchema.shape.identity;

/** The identity policy and the namespace it is applied for; absent: nothing bounded (unit tests). */
export interface IdentityBounds {
  readonly policy: IdentityPolicy;
  readonly namespace: string;
}

/** undefined when the Workspace has no spec.identity. */
export function planIdentity(
  spec: WorkspaceIdentityView | undefined,
  makeRef: MakeRef,
  reach: ReachCheck | undefined,
  bounds?: IdentityBounds,
): IdentityPlan | undefined {
  if (spec === undefined) return undefined;
  // Checked with a stand-in reference first, so a spec that is not used copies no secret.
  const standIn: MakeRef = () => ({ kubernetesSecret: { name: 'stand-in', key: 'stand-in' } });
  const draft = toContract(spec, standIn);
  if ('problem' in draft) return notUsed(draft.problem);
  const parsed = IdentityContractSchema.safeParse(draft.document);
  if (!parsed.success || parsed.data === undefined)
    return notUsed(invalidSpec(parsed.error?.issues ?? [], fieldOf));
  if (bounds !== undefined) {
    const bound = boundIdentity(parsed.data, bounds.policy, bounds.namespace);
    if ('refused' in bound) return notUsed(refusalCondition(bound.refused));
  }
  for (const [field, url] of identityUrlFields(spec)) {
    const refused = reach?.url(field, url);
    if (refused !== undefined) return notUsed(refused);
  }
  const rendered = toContract(spec, makeRef);
  if ('problem' in rendered) return notUsed(rendered.problem);
  let document: Readonly<Record<string, unknown>> = rendered.document;
  if (bounds !== undefined) {
    // The rendered document has the parsed draft's shape (only the secret references differ), so
    // the policy applies to it as it did to the draft: fixed key sources, the admin's conditions.
    const bound = boundIdentity(
      rendered.document as unknown as NonNullable<typeof parsed.data>,
      bounds.policy,
      bounds.namespace,
    );
    if ('refused' in bound) return notUsed(refusalCondition(bound.refused));
    document = bound.identity;
    const combined = IdentityContractSchema.safeParse(document);
    if (!combined.success) return notUsed(invalidSpec(combined.error.issues, fieldOf));
  }
  return {
    render: document,
    condition: { ready: true, reason: 'Rendered', message: 'spec.identity is served' },
    issuers: spec.issuers.length,
  };
}

/** The URLs spec.identity makes the gateways fetch, for the controller to resolve before planning. */
export function identityUrls(spec: WorkspaceIdentityView | undefined): string[] {
  return identityUrlFields(spec).map(([, url]) => url);
}

function identityUrlFields(spec: WorkspaceIdentityView | undefined): [string, string][] {
  const fields: [string, string][] = [];
  spec?.issuers.forEach((issuer, index) => {
    const at = `spec.identity.issuers[${index}]`;
    fields.push([`${at}.issuer`, issuer.issuer]);
    if (issuer.jwks?.uri !== undefined) fields.push([`${at}.jwks.uri`, issuer.jwks.uri]);
    if (issuer.introspection?.endpoint !== undefined)
      fields.push([`${at}.introspection.endpoint`, issuer.introspection.endpoint]);
  });
  return fields;
}

/** spec.identity in the config contract's shape: `jwks.uri` becomes `jwksUri`, the introspection
 * secretKeyRef a reference made by `makeRef`; everything else is the contract's own field. */
function toContract(
  spec: WorkspaceIdentityView,
  makeRef: MakeRef,
): { readonly document: Record<string, unknown> } | { readonly problem: ReadyCondition } {
  const issuers: Record<string, unknown>[] = [];
  for (const [index, declared] of spec.issuers.entries()) {
    const { jwks, introspection, ...rest } = declared;
    const issuer: Record<string, unknown> = { ...rest };
    if (jwks?.uri !== undefined) issuer['jwksUri'] = jwks.uri;
    if (introspection !== undefined) {
      const { clientSecret, ...settings } = introspection;
      const secret = makeRef(secretField(index), clientSecret.secretKeyRef);
      if ('ready' in secret)
        return {
          problem: {
            ...secret,
            message: `spec.identity.issuers[${index}].introspection.clientSecret: ${secret.message}`,
          },
        };
      issuer['introspection'] = { ...settings, clientSecret: secret };
    }
    issuers.push(issuer);
  }
  return { document: { issuers, rules: spec.rules } };
}

function fieldOf(path: readonly PropertyKey[]): string {
  const mapped = path.map((part) => (part === 'jwksUri' ? 'jwks.uri' : part));
  return path.length === 0 ? 'spec.identity' : `spec.identity.${formatPath(mapped)}`;
}

function refusalCondition(refusal: IdentityRefusal): ReadyCondition {
  const field = refusal.field === 'jwksUri' ? 'jwks.uri' : refusal.field;
  return {
    ready: false,
    reason: refusal.reason,
    message: `spec.identity.issuers[${refusal.index}].${field}: ${refusal.message}`,
  };
}

function notUsed(problem: ReadyCondition): IdentityPlan {
  return {
    condition: {
      ready: false,
      reason: problem.reason,
      message: `spec.identity not used (no OAuth sign-in; API keys unaffected): ${problem.message}`,
    },
    issuers: 0,
  };
}
