// Policy over calls (issue 41 part 3, DESIGN D26, docs/security.md "Policy over calls"): rules in
// CEL on a workspace, an API key or an identity rule that allow or deny a tools/call. Each rule
// names the tools it applies to (glob patterns over namespaced tool names, as a key's `tools`), its effect,
// a condition and the message the caller sees. The condition is checked here, statically
// (policy-expression.ts), so a rule that cannot compile refuses the config at its path; the
// gateway compiles and evaluates it in gateway/governance.
import { z } from 'zod';
import { patternSchema } from './name-schema.js';
import { checkPolicyExpression, POLICY_BOUNDS } from './policy-expression.js';

/** Rules per list (a workspace's, a key's, an identity rule's): the CRD's maxItems. */
export const MAX_POLICIES = 32;

export const PolicyExpressionSchema = z
  .string()
  .min(1)
  .max(POLICY_BOUNDS.expressionLength)
  .superRefine((text, ctx) => {
    const checked = checkPolicyExpression(text);
    if (!checked.ok) ctx.addIssue({ code: 'custom', message: checked.problem });
  })
  .describe(
    'A CEL condition over principal, tool and args (docs/security.md); at most 300 AST nodes, 4 comprehensions, none nested.',
  );

export const PolicySchema = z
  .strictObject({
    name: z
      .string()
      .max(40)
      .regex(/^[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?$/, 'must be 1-40 lower-case letters, digits or hyphens')
      .describe('The rule’s name: refused callers and audit records see it.'),
    tools: z
      .array(patternSchema)
      .min(1)
      .max(100)
      .default(['*'])
      .describe(
        'The tools this rule applies to: glob patterns over namespaced tool names (<source>__<tool>, whatever the prefix policy), as a key’s tools.',
      ),
    effect: z
      .enum(['deny', 'allow'])
      .describe(
        'deny: a call is refused when `when` is true. allow: when any allow rule applies, one must be true.',
      ),
    when: PolicyExpressionSchema,
    message: z
      .string()
      .min(1)
      .max(300)
      .regex(/^[^\x00-\x1f\x7f]*$/, 'must be one line of text')
      .describe('What a refused caller reads, after "Permission denied: ".'),
  })
  .describe('A CEL rule over tools/call.');
export type PolicyConfig = z.infer<typeof PolicySchema>;

export const PoliciesSchema = z
  .array(PolicySchema)
  .max(MAX_POLICIES)
  .superRefine((policies, ctx) => {
    const seen = new Set<string>();
    policies.forEach((policy, index) => {
      if (seen.has(policy.name))
        ctx.addIssue({
          code: 'custom',
          path: [index, 'name'],
          message: `duplicate policy name ${policy.name}`,
        });
      seen.add(policy.name);
    });
  })
  .describe('Rules in CEL over tools/call, in order: deny rules first, then allow rules (docs/security.md).');
