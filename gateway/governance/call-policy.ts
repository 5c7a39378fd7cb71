// Decides a tools/call by CEL policy (issue 41 part 3, DESIGN D26: after visibility and the pinned
// definition, before limits and guardrails). Two lists decide in turn, each on its own: the
// workspace's `governance.policies`, then the caller's own (its API key's or identity rule's
// `policies`), so a key's rules can only narrow what its workspace allows. In a list, the rules
// whose `tools` match the called name apply: a deny rule that is true refuses; then, when any allow
// rule applies, one must be true. A rule that cannot be evaluated (a missing field, a type error,
// the iteration budget spent) refuses with a generic reason: never its error text, which can hold
// argument values.
import { matchesAny, type Principal } from '../auth/index.js';
import type { PolicyConfig } from '../config/index.js';
import type { CatalogTool } from '../discovery/index.js';
import {
  compiledPolicies,
  type CompiledPolicy,
  type PolicyBindings,
  type RuleOutcome,
} from './policy-compiler.js';

/** Why a call is refused: the rule that refused it and what the caller reads. */
export interface PolicyDenial {
  readonly policy: string;
  readonly message: string;
  /** `denied`: a deny rule was true; `not-allowed`: no allow rule was; `error`: a rule could not
   * be evaluated. */
  readonly cause: 'denied' | 'not-allowed' | 'error';
}

/** The refusal for this call, or undefined when the policies allow it (or there are none). */
export function decideCall(
  principal: Principal,
  tool: CatalogTool,
  args: Readonly<Record<string, unknown>> | undefined,
): PolicyDenial | undefined {
  const lists = [principal.workspace.governance.policies, principal.policies];
  let bindings: PolicyBindings | undefined;
  for (const list of lists) {
    if (list === undefined || list.length === 0) continue;
    const applicable = applicableRules(list, tool.name);
    if (applicable.length === 0) continue;
    bindings ??= bindingsOf(principal, tool, args);
    const denial = decideList(list, applicable, bindings);
    if (denial !== undefined) return denial;
  }
  return undefined;
}

function applicableRules(list: readonly PolicyConfig[], name: string): CompiledPolicy[] {
  return compiledPolicies(list).policies.filter((rule) => matchesAny(rule.config.tools, name));
}

function decideList(
  list: readonly PolicyConfig[],
  applicable: readonly CompiledPolicy[],
  bindings: PolicyBindings,
): PolicyDenial | undefined {
  compiledPolicies(list).begin();
  for (const rule of applicable) {
    if (rule.config.effect !== 'deny') continue;
    const outcome = rule.evaluate(bindings);
    if (outcome === true) return denial(rule, 'denied');
    if (outcome === 'error') return denial(rule, 'error');
  }
  let first: { rule: CompiledPolicy; outcome: RuleOutcome } | undefined;
  for (const rule of applicable) {
    if (rule.config.effect !== 'allow') continue;
    const outcome = rule.evaluate(bindings);
    if (outcome === true) return undefined;
    first ??= { rule, outcome };
  }
  if (first === undefined) return undefined;
  return denial(first.rule, first.outcome === 'error' ? 'error' : 'not-allowed');
}

function denial(rule: CompiledPolicy, cause: PolicyDenial['cause']): PolicyDenial {
  return {
    policy: rule.config.name,
    message:
      cause === 'error'
        ? 'this call could not be checked against the policy, so it is refused'
        : rule.config.message,
    cause,
  };
}

/** What a rule sees (docs/security.md lists the fields; config/policy-expression.ts checks them). */
function bindingsOf(
  principal: Principal,
  tool: CatalogTool,
  args: Readonly<Record<string, unknown>> | undefined,
): PolicyBindings {
  const oidc = principal.oidc;
  return {
    principal: {
      workspace: principal.workspace.name,
      kind: oidc === undefined ? 'api_key' : 'oauth',
      subject: oidc?.subject ?? principal.keyId,
      keyId: principal.keyId,
      name: principal.keyName ?? '',
      access: principal.access,
      issuer: oidc?.issuer ?? '',
      scopes: oidc?.scopes ?? [],
      claims: oidc?.claims ?? {},
    },
    tool: {
      name: tool.name,
      source: tool.source,
      upstreamName: tool.upstreamName,
      access: tool.permission,
      annotations: tool.annotations ?? {},
    },
    args: args ?? {},
  };
}
