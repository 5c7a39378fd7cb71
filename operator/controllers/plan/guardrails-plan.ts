// The guardrails part of a workspace's plan (issue 41 part 5): spec.governance.guardrails becomes
// the rendered workspace's `governance.guardrails`, each hook's secretKeyRef copied into the
// workspace's credentials Secret as a reference (like source credentials), each hook URL put to the
// tenant reach policy. A hook is never left out (that would let calls through unguarded): one whose
// Secret is missing is rendered with a reference that does not resolve, and one whose URL the
// policy refuses is refused again by the gateways' network guard, so both fail by the hook's own
// failure policy (closed by default); the Workspace's Ready message says which and why.
import { credentialSecretName } from '../../../gateway/config/kube/index.js';
import type { SecretRef } from '../../../gateway/config/index.js';
import type { ReachCheck } from './reach-check.js';
import type { ReadyCondition } from './ready-condition.js';
import type { SecretKeyRef } from './resource-views.js';

type MakeRef = (field: string, ref: SecretKeyRef) => SecretRef | ReadyCondition;

/** Where hook secrets go in the credentials Secret: `cred.workspace.guardrails.<hook>.secret.<hash>`. */
export const GUARDRAILS_CREDENTIAL_SOURCE = 'workspace';

export interface GuardrailsPlan {
  readonly render: Readonly<Record<string, unknown>>;
  /** What of it cannot work as written (a missing Secret, a refused URL), for the Ready message. */
  readonly problems: readonly string[];
}

interface HookSpec extends Record<string, unknown> {
  readonly name: string;
  readonly url: string;
  readonly secret: { readonly secretKeyRef: SecretKeyRef };
}

export function planGuardrails(
  workspace: string,
  spec: Readonly<Record<string, unknown>> | undefined,
  makeRef: MakeRef,
  reach: ReachCheck | undefined,
): GuardrailsPlan | undefined {
  if (spec === undefined) return undefined;
  const guardrails = spec['guardrails'] as { hooks?: readonly HookSpec[] } | undefined;
  if (guardrails?.hooks === undefined) return { render: spec, problems: [] };
  const problems: string[] = [];
  const hooks = guardrails.hooks.map((hook, index) => {
    const at = `spec.governance.guardrails.hooks[${index}]`;
    const refused = reach?.url(`${at}.url`, hook.url);
    if (refused !== undefined) problems.push(`guardrail hook ${hook.name}: ${refused.message}`);
    const secret = makeRef(`guardrails.${hook.name}.secret`, hook.secret.secretKeyRef);
    if ('ready' in secret) {
      problems.push(`guardrail hook ${hook.name}: ${secret.message}`);
      return { ...hook, secret: unresolvable(workspace, hook.name) };
    }
    return { ...hook, secret };
  });
  return { render: { ...spec, guardrails: { ...guardrails, hooks } }, problems };
}

/** A reference to a key the credentials Secret never holds (its keys all start with `cred.`). */
function unresolvable(workspace: string, hook: string): SecretRef {
  return { kubernetesSecret: { name: credentialSecretName(workspace), key: `missing.${hook}` } };
}

/** The hook URLs, whose host names the controller resolves before the plan asks the policy. */
export function governanceUrls(spec: Readonly<Record<string, unknown>> | undefined): string[] {
  const hooks = (spec?.['guardrails'] as { hooks?: readonly HookSpec[] } | undefined)?.hooks ?? [];
  return hooks.map((hook) => hook.url);
}
