// The governance part of a workspace's plan (issue 41): Workspace spec.governance becomes the
// rendered workspace's `governance`, checked with the gateway's own schema first. The CRD bounds the
// fields (lengths, counts) but cannot compile a CEL policy; a spec the gateway would refuse (a rule
// that does not compile, a name used twice) is rendered as one deny-all rule instead, so the
// workspace keeps serving everything but tool calls (fail closed: never its calls without the
// rules), and its Ready condition names the path.
import { formatPath, GovernanceSchema } from '../../../gateway/config/index.js';
import { invalidSpec } from './invalid-spec.js';
import type { ReadyCondition } from './ready-condition.js';

export interface GovernancePlan {
  readonly render: Readonly<Record<string, unknown>>;
  readonly condition: ReadyCondition;
  /** What of its guardrail hooks cannot work as written (guardrails-plan.ts), for the Ready message. */
  readonly problems: readonly string[];
}

/** What an invalid spec.governance is rendered as: every tool call refused, with a reason. */
export const GOVERNANCE_FAIL_CLOSED = {
  policies: [
    {
      name: 'invalid-governance',
      effect: 'deny',
      when: 'true',
      message: "this workspace's governance spec is invalid; its Workspace status says why",
    },
  ],
} as const;

/** undefined when the Workspace has no spec.governance. */
export function planGovernance(
  spec: Readonly<Record<string, unknown>> | undefined,
): GovernancePlan | undefined {
  if (spec === undefined) return undefined;
  const parsed = GovernanceSchema.safeParse(spec);
  if (parsed.success)
    return {
      render: spec,
      condition: { ready: true, reason: 'Rendered', message: 'spec.governance is served' },
      problems: [],
    };
  const refused = invalidSpec(parsed.error.issues, (path) =>
    path.length === 0 ? 'spec.governance' : `spec.governance.${formatPath(path)}`,
  );
  return {
    render: GOVERNANCE_FAIL_CLOSED,
    problems: [],
    condition: { ...refused, message: `tool calls refused until fixed: ${refused.message}`.slice(0, 1000) },
  };
}
