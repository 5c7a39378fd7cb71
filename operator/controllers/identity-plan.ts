// The identity part of a workspace's plan (issue 29, D22): Workspace spec.identity becomes the
// rendered workspace's `identity`, checked with the gateway's own schema and the tenant reach policy
// (D19) on every URL the operator can see (issuer, JWKS, introspection endpoint), the introspection
// client secrets copied into the workspace's credentials Secret as references. A spec that cannot be
// used renders no identity at all (fail closed: no OAuth caller is admitted, API keys keep working),
// never part of one; the Workspace's Ready condition says why.
import { formatPath, WorkspaceSchema, type SecretRef } from '../../gateway/config/index.js';
import { invalidSpec } from './invalid-spec.js';
import type { ReachCheck } from './reach-check.js';
import type { SecretKeyRef, WorkspaceIdentityView } from './resource-views.js';
import type { ReadyCondition } from './workspace-plan.js';

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

/** undefined when the Workspace has no spec.identity. */
export function planIdentity(
  spec: WorkspaceIdentityView | undefined,
  makeRef: MakeRef,
  reach: ReachCheck | undefined,
): IdentityPlan | undefined {
  if (spec === undefined) return undefined;
  // Checked with a stand-in reference first, so a spec that is not used copies no secret.
  const standIn: MakeRef = () => ({ kubernetesSecret: { name: 'stand-in', key: 'stand-in' } });
  const draft = toContract(spec, standIn);
  if ('problem' in draft) return notUsed(draft.problem);
  const parsed = IdentityContractSchema.safeParse(draft.document);
  if (!parsed.success) return notUsed(invalidSpec(parsed.error.issues, fieldOf));
  for (const [field, url] of identityUrlFields(spec)) {
    const refused = reach?.url(field, url);
    if (refused !== undefined) return notUsed(refused);
  }
  const rendered = toContract(spec, makeRef);
  if ('problem' in rendered) return notUsed(rendered.problem);
  return {
    render: rendered.document,
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
