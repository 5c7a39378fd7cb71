// CEL policy decisions over one call (issue 41 part 3), on principals and tools as the gateway builds
// them: deny then allow, the workspace's list then the caller's, fail closed on any evaluation error
// with a reason that holds no argument value, and a hostile rule bounded by the iteration budget.
import { describe, expect, it } from 'vitest';
import { principalFor, type Principal } from '../../../gateway/auth/index.js';
import { admit, principalForIdentity } from '../../../gateway/auth/identity-mapping.js';
import { formatProblems, validateConfig, type PolicyConfig } from '../../../gateway/config/index.js';
import type { CatalogTool } from '../../../gateway/discovery/index.js';
import { decideCall, POLICY_STEP_BUDGET } from '../../../gateway/governance/index.js';

const HASH = `sha256:${'a'.repeat(64)}`;

type Rule = Partial<PolicyConfig> & Pick<PolicyConfig, 'when'>;

/** A principal of a workspace with `workspaceRules`, its key with `keyRules`, both parsed by the
 * config contract (so defaults and checks apply as in the gateway). */
function principalWith(workspaceRules: Rule[], keyRules?: Rule[]): Principal {
  const complete = (rules: Rule[]) =>
    rules.map((rule, index) => ({ name: `r${index}`, effect: 'deny', message: `rule ${index}`, ...rule }));
  const result = validateConfig({
    version: 1,
    workspaces: [
      {
        name: 'acme',
        governance: { policies: complete(workspaceRules) },
        keys: [
          {
            id: 'Ab3dE5gH7k',
            hash: HASH,
            access: 'write',
            ...(keyRules === undefined ? {} : { policies: complete(keyRules) }),
          },
        ],
      },
    ],
  });
  if (!result.ok) throw new Error(formatProblems(result.problems));
  const workspace = result.config.workspaces[0]!;
  return principalFor(workspace.keys[0]!, workspace);
}

function tool(name = 'gh__create_issue', annotations: CatalogTool['annotations'] = undefined): CatalogTool {
  const [source, upstreamName] = name.split('__') as [string, string];
  return {
    name,
    source,
    upstreamName,
    description: '',
    permission: 'write',
    inputSchema: { type: 'object' },
    annotations,
    definition: { name, inputSchema: { type: 'object' } },
  };
}

describe('decideCall', () => {
  it('allows when there are no rules, or none applies to the tool', () => {
    expect(decideCall(principalWith([]), tool(), {})).toBeUndefined();
    expect(decideCall(principalWith([{ when: 'true', tools: ['db__*'] }]), tool(), {})).toBeUndefined();
  });

  it('denies when a deny rule is true, with its name and message', () => {
    const principal = principalWith([
      { name: 'no-prod', when: "args.project == 'prod'", message: 'not prod' },
    ]);
    expect(decideCall(principal, tool(), { project: 'prod' })).toEqual({
      policy: 'no-prod',
      message: 'not prod',
      cause: 'denied',
    });
    expect(decideCall(principal, tool(), { project: 'dev' })).toBeUndefined();
  });

  it('needs one true allow rule when any applies; the first applicable one names the refusal', () => {
    const principal = principalWith([
      {
        name: 'only-x',
        effect: 'allow',
        tools: ['gh__create_issue'],
        when: "args.project == 'x'",
        message: 'only x',
      },
      { name: 'or-y', effect: 'allow', tools: ['gh__*'], when: "args.project == 'y'", message: 'or y' },
    ]);
    expect(decideCall(principal, tool(), { project: 'x' })).toBeUndefined();
    expect(decideCall(principal, tool(), { project: 'y' })).toBeUndefined();
    expect(decideCall(principal, tool(), { project: 'z' })).toMatchObject({
      policy: 'only-x',
      cause: 'not-allowed',
    });
    // Another tool: only `or-y` applies.
    expect(decideCall(principal, tool('gh__close_issue'), { project: 'z' })).toMatchObject({
      policy: 'or-y',
    });
    expect(decideCall(principal, tool('db__query'), { project: 'z' })).toBeUndefined();
  });

  it('deny wins over allow', () => {
    const principal = principalWith([
      { name: 'allow-all', effect: 'allow', when: 'true' },
      { name: 'deny-drop', when: "args.sql.contains('DROP')" },
    ]);
    expect(decideCall(principal, tool('db__query'), { sql: 'DROP TABLE t' })).toMatchObject({
      policy: 'deny-drop',
    });
  });

  it("decides the workspace's list and the key's each on its own: a key's allow cannot widen", () => {
    const principal = principalWith(
      [{ name: 'ws-only-x', effect: 'allow', when: "args.project == 'x'" }],
      [{ name: 'key-any', effect: 'allow', when: 'true' }],
    );
    expect(decideCall(principal, tool(), { project: 'z' })).toMatchObject({ policy: 'ws-only-x' });
    const narrowed = principalWith([], [{ name: 'key-deny', when: "args.project == 'x'" }]);
    expect(decideCall(narrowed, tool(), { project: 'x' })).toMatchObject({ policy: 'key-deny' });
  });

  it('sees the principal, the tool and its annotations', () => {
    const principal = principalWith([
      {
        name: 'read-only-for-key',
        when: "principal.kind == 'api_key' && principal.keyId == 'Ab3dE5gH7k' && principal.workspace == 'acme' && principal.access == 'write' && principal.scopes.size() == 0 && tool.source == 'gh' && tool.upstreamName == 'create_issue' && has(tool.annotations.destructiveHint) && tool.annotations.destructiveHint",
      },
    ]);
    expect(decideCall(principal, tool('gh__create_issue', { destructiveHint: true }), {})).toMatchObject({
      policy: 'read-only-for-key',
    });
    expect(decideCall(principal, tool('gh__create_issue', { destructiveHint: false }), {})).toBeUndefined();
    expect(decideCall(principal, tool('gh__create_issue'), {})).toBeUndefined();
  });

  it('fails closed on an evaluation error with a generic reason that holds no argument value', () => {
    const rules: Rule[] = [
      { name: 'missing', when: "args.project == 'x'" },
      { name: 'types', when: "args.count + 'x' == 'y'" },
      { name: 'not-bool', when: 'args.flag' },
    ];
    for (const [index, rule] of rules.entries()) {
      const principal = principalWith([rule]);
      const denial = decideCall(principal, tool(), { count: 3, flag: 'secret-value-123' });
      expect(denial, rule.name).toEqual({
        policy: rules[index]!.name,
        message: 'this call could not be checked against the policy, so it is refused',
        cause: 'error',
      });
    }
    // An allow rule that errs never allows.
    const allow = principalWith([{ name: 'allow-err', effect: 'allow', when: "args.project == 'x'" }]);
    expect(decideCall(allow, tool(), {})).toMatchObject({ policy: 'allow-err', cause: 'error' });
  });

  it('numbers in args are doubles and compare with ints', () => {
    const principal = principalWith([
      { name: 'big', when: 'args.amount > 100 || args.amount * 2.0 > 150.0' },
    ]);
    expect(decideCall(principal, tool(), { amount: 101 })).toMatchObject({ policy: 'big' });
    expect(decideCall(principal, tool(), { amount: 76 })).toMatchObject({ policy: 'big' });
    expect(decideCall(principal, tool(), { amount: 75 })).toBeUndefined();
  });

  it('a slow rule over a huge argument is stopped by the iteration budget and refuses the call', () => {
    const principal = principalWith([
      {
        name: 'scan',
        when: "args.items.exists(i, i + i == 'never') || args.items.all(i, i.size() > 1000)",
      },
    ]);
    const items = Array.from({ length: 200_000 }, (_, index) => `item-${index}`);
    const started = performance.now();
    const denial = decideCall(principal, tool(), { items });
    const elapsed = performance.now() - started;
    expect(denial).toMatchObject({ policy: 'scan', cause: 'error' });
    // Each of the two lists of a call may spend POLICY_STEP_BUDGET iterations; unbounded this would
    // be 400,000 iterations.
    expect(elapsed).toBeLessThan(500);
    // Under the budget the same rule decides.
    expect(decideCall(principal, tool(), { items: items.slice(0, POLICY_STEP_BUDGET / 4) })).toBeUndefined();
    // The budget is per call: the next call starts full.
    expect(decideCall(principal, tool(), { items: ['a'] })).toBeUndefined();
  });

  it('compiles a list once per config version', () => {
    const principal = principalWith([{ name: 'r', when: "args.x == 'y'" }]);
    const first = performance.now();
    decideCall(principal, tool(), { x: 'y' });
    const compileAndRun = performance.now() - first;
    const again = performance.now();
    for (let i = 0; i < 100; i += 1) decideCall(principal, tool(), { x: 'z' });
    expect((performance.now() - again) / 100).toBeLessThan(compileAndRun);
  });

  it("an identity rule's own policies apply to the callers it admits, with their claims and scopes", () => {
    const issuer = 'https://issuer.example.com';
    const result = validateConfig({
      version: 1,
      server: { publicUrl: 'https://gw.example.com' },
      oauth: {},
      workspaces: [
        {
          name: 'acme',
          identity: {
            issuers: [{ issuer }],
            rules: [
              {
                name: 'contractors',
                issuer,
                when: [{ claim: 'groups', contains: 'contractors' }],
                access: 'write',
                policies: [
                  {
                    name: 'own-region',
                    effect: 'allow',
                    when:
                      "args.region == principal.claims.region && 'mcp:write' in principal.scopes && principal.issuer == '" +
                      issuer +
                      "' && principal.subject == 'bob' && principal.name == 'contractors'",
                    message: 'contractors work in their own region',
                  },
                ],
              },
              { name: 'staff', issuer, access: 'write' },
            ],
          },
        },
      ],
    });
    if (!result.ok) throw new Error(formatProblems(result.problems));
    const workspace = result.config.workspaces[0]!;
    const signIn = (claims: Record<string, unknown>) => {
      const admission = admit(workspace, issuer, claims);
      if (!admission.ok) throw new Error('not admitted');
      return principalForIdentity(admission, issuer, 'bob', claims, undefined);
    };
    const contractor = signIn({ sub: 'bob', groups: ['contractors'], region: 'eu', scope: 'mcp:write' });
    expect(decideCall(contractor, tool(), { region: 'eu' })).toBeUndefined();
    expect(decideCall(contractor, tool(), { region: 'us' })).toMatchObject({
      policy: 'own-region',
      cause: 'not-allowed',
    });
    // The staff rule has no policies: the contractors' rule does not apply to its callers.
    const staff = signIn({ sub: 'bob', groups: ['staff'], region: 'eu' });
    expect(decideCall(staff, tool(), { region: 'us' })).toBeUndefined();
  });
});
