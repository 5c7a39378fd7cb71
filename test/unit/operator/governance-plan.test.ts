// Workspace spec.governance and ApiKey spec.policies through the operator's plan (issue 41 part 3):
// valid rules reach the rendered workspace as written; rules the gateway would refuse never leave
// their workspace or key serving calls without them (fail closed), and the status names the path.
import { describe, expect, it } from 'vitest';
import { generateKey } from '../../../gateway/auth/index.js';
import { validateWorkspace } from '../../../gateway/config/config-loader.js';
import { GOVERNANCE_FAIL_CLOSED } from '../../../operator/controllers/plan/governance-plan.js';
import type { PlanInput } from '../../../operator/controllers/plan/plan-input.js';
import { planWorkspace } from '../../../operator/controllers/plan/workspace-plan.js';
import { fragmentOf, readyOf, controllerWith } from '../../support/operator-controller.js';
import { apiKey, meta, planInput, workspace as workspaceOf } from '../../support/operator-objects.js';

const good = { name: 'no-prod', effect: 'deny', when: "args.project == 'prod'", message: 'not prod' };
const broken = { ...good, name: 'broken', when: 'args.project ==' };

function input(
  governance: Record<string, unknown> | undefined,
  overrides: Partial<PlanInput> = {},
): PlanInput {
  return planInput({
    workspace: { metadata: meta('demo'), spec: governance === undefined ? {} : { governance } },
    ...overrides,
  });
}

function rendered(plan: ReturnType<typeof planWorkspace>) {
  const { namespace: _ns, credentials: _c, ...document } = plan.render;
  const validated = validateWorkspace(document);
  if (!validated.ok) throw new Error(JSON.stringify(validated.problems));
  return validated.workspace;
}

describe('governance in the plan', () => {
  it('operator:governance-rendered — valid policies reach the gateway as written', () => {
    const plan = planWorkspace(input({ policies: [good] }));
    expect(plan.governance?.condition).toMatchObject({ ready: true });
    expect(rendered(plan).governance.policies).toEqual([{ ...good, tools: ['*'] }]);
  });

  it('operator:governance-fail-closed — a rule that does not compile renders a deny-all rule and names the path', () => {
    const plan = planWorkspace(input({ policies: [good, broken] }));
    expect(plan.governance?.condition).toEqual({
      ready: false,
      reason: 'InvalidSpec',
      message: expect.stringMatching(
        /^tool calls refused until fixed: spec\.governance\.policies\[1\]\.when: does not parse: at 1:14/,
      ) as unknown,
    });
    expect(plan.render['governance']).toBe(GOVERNANCE_FAIL_CLOSED);
    expect(rendered(plan).governance.policies).toEqual([
      { ...GOVERNANCE_FAIL_CLOSED.policies[0], tools: ['*'] },
    ]);
  });

  it("operator:key-policies — a key's valid rules are rendered; a key with a broken rule is not served", () => {
    const [ok, bad] = [generateKey(), generateKey()];
    const plan = planWorkspace(
      input(undefined, {
        apiKeys: [
          apiKey(meta('ok'), 'demo', { policies: [good] }),
          apiKey(meta('bad'), 'demo', { policies: [broken] }),
        ],
        keyMaterial: new Map([
          ['ok', { id: ok.id, hash: ok.hash }],
          ['bad', { id: bad.id, hash: bad.hash }],
        ]),
      }),
    );
    expect(plan.apiKeys.get('bad')).toMatchObject({
      ready: false,
      reason: 'InvalidSpec',
      message: expect.stringMatching(/^spec\.policies\[0\]\.when: does not parse/) as unknown,
    });
    const keys = rendered(plan).keys;
    expect(keys.map((key) => key.id)).toEqual([ok.id]);
    expect(keys[0]?.policies).toEqual([{ ...good, tools: ['*'] }]);
  });
});

describe('governance in the Workspace status', () => {
  it('operator:governance-status — an invalid spec.governance makes the Workspace Ready=False with the path, and renders the deny-all rule', async () => {
    const ws = workspaceOf(
      { ...meta('guarded', 'team-a'), creationTimestamp: '2026-01-01T00:00:00Z' },
      { governance: { policies: [good, broken] } },
    );
    const { controller, writer } = controllerWith({ workspaces: () => [ws] });
    await controller.reconcile('team-a/guarded');
    expect(readyOf(writer, 'guarded')).toMatchObject({
      status: 'False',
      reason: 'InvalidSpec',
      message: expect.stringContaining(
        'served by the gateways; tool calls refused until fixed: spec.governance.policies[1].when: does not parse',
      ) as unknown,
    });
    expect(fragmentOf(writer, 'agw-ws-guarded-c0')).toContain('invalid-governance');
  });
});
