// The `InvalidSpec` condition of a resource whose spec the gateway's config contract refuses: at most
// five problems, each as `<field>: <message>`, within 1,000 characters. `fieldOf` names a problem's
// path the way the resource spells it (spec.…), since the contract's paths are not the CRD's.
import type { ReadyCondition } from './ready-condition.js';

export function invalidSpec(
  issues: readonly { readonly path: readonly PropertyKey[]; readonly message: string }[],
  fieldOf: (path: readonly PropertyKey[]) => string,
): ReadyCondition {
  const problems = issues.slice(0, 5).map((issue) => `${fieldOf(issue.path)}: ${issue.message}`);
  return { ready: false, reason: 'InvalidSpec', message: problems.join('; ').slice(0, 1000) };
}
