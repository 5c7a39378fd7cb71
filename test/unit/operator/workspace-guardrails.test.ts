// Workspace spec.governance.guardrails through the operator (issue 41 part 5): a hook's secretKeyRef
// becomes a reference into the workspace's credentials Secret (the value only there), the rendered
// workspace is one the gateway accepts, and a hook that cannot work (missing Secret, refused URL) is
// still rendered, so the gateways fail it by its own policy, and the plan says why.
import { describe, expect, it } from 'vitest';
import { validateWorkspace } from '../../../gateway/config/config-loader.js';
import { TenantPolicySchema } from '../../../gateway/config/index.js';
import { credentialSecretName, renderWorkspace } from '../../../gateway/config/kube/index.js';
import { ReachPolicy } from '../../../gateway/reach/index.js';
import { WorkspaceSpecSchema } from '../../../operator/api/v1alpha1/workspace.js';
import { reachCheck } from '../../../operator/controllers/plan/reach-check.js';
import { planWorkspace } from '../../../operator/controllers/plan/workspace-plan.js';
import { cachedMeta as meta, planInput, TENANT as ns } from '../../support/operator-objects.js';

const HOOK_SECRET = 'hmac-key-for-the-guardrail-hook';
const governance = {
  guardrails: {
    hooks: [
      {
        name: 'dlp',
        url: 'https://dlp.example.com/check',
        phases: ['request', 'response'],
        secret: { secretKeyRef: { name: 'dlp-hook', key: 'hmac' } },
      },
    ],
  },
};

function renderedGuardrails(
  secrets: Record<string, Record<string, string>>,
  reach?: ReturnType<typeof reachCheck>,
) {
  const plan = planWorkspace(
    planInput(
      {
        workspace: { metadata: meta('demo'), spec: { governance } },
        ...(reach === undefined ? {} : { reach }),
      },
      secrets,
    ),
  );
  const rendered = renderWorkspace(plan.render);
  const configMap = rendered.parts.find((p) => p.kind === 'ConfigMap')?.data['fragment.json'] ?? '';
  const result = validateWorkspace({ ...(JSON.parse(configMap) as object), namespace: ns, keys: [] });
  if (!result.ok) throw new Error('the rendered workspace is refused');
  return { plan, rendered, guardrails: result.workspace.governance.guardrails };
}

describe('Workspace spec.governance.guardrails in the operator plan', () => {
  it('operator:guardrails-plan — the hook secret becomes a credentials-Secret reference, its value never in a ConfigMap', () => {
    const { plan, rendered, guardrails } = renderedGuardrails({ 'dlp-hook': { hmac: HOOK_SECRET } });
    expect(guardrails.maskSecrets).toBe(true);
    expect(guardrails.hooks[0]).toMatchObject({ name: 'dlp', failure: 'closed', timeoutMs: 2000 });
    expect(guardrails.hooks[0]?.secret).toEqual({
      kubernetesSecret: {
        name: credentialSecretName('demo'),
        key: expect.stringMatching(/^cred\.workspace\.guardrails\.dlp\.secret\./),
      },
    });
    expect(plan.governance?.problems).toEqual([]);
    for (const part of rendered.parts.filter((p) => p.kind === 'ConfigMap'))
      expect(JSON.stringify(part.data)).not.toContain(HOOK_SECRET);
    expect(Object.values(rendered.parts.find((p) => p.kind === 'Secret')?.data ?? {})).toContain(HOOK_SECRET);
  });

  it('operator:guardrails-fail-closed — a missing Secret or a refused URL still renders the hook (it fails by its policy) and is named in the plan', () => {
    const missing = renderedGuardrails({});
    expect(missing.guardrails.hooks).toHaveLength(1);
    expect(missing.guardrails.hooks[0]?.secret).toEqual({
      kubernetesSecret: { name: credentialSecretName('demo'), key: 'missing.dlp' },
    });
    expect(missing.plan.governance?.problems.join()).toContain('guardrail hook dlp: Secret dlp-hook');
    const policy = new ReachPolicy(TenantPolicySchema.parse({ network: { denyCidrs: ['10.0.0.0/8'] } }));
    const denied = renderedGuardrails(
      { 'dlp-hook': { hmac: HOOK_SECRET } },
      reachCheck(policy, { namespace: ns, workspace: 'demo' }, new Map([['dlp.example.com', ['10.1.2.3']]])),
    );
    expect(denied.guardrails.hooks).toHaveLength(1);
    expect(denied.plan.governance?.problems.join()).toContain('guardrail hook dlp:');
  });

  it('operator:guardrails-secret-ref-only — the CRD takes a secretKeyRef only, never an env or file reference', () => {
    const hook = governance.guardrails.hooks[0];
    for (const secret of [{ env: 'REDIS_PASSWORD' }, { file: '/var/run/secrets/token' }])
      expect(
        WorkspaceSpecSchema.safeParse({ governance: { guardrails: { hooks: [{ ...hook, secret }] } } })
          .success,
      ).toBe(false);
    expect(WorkspaceSpecSchema.safeParse({ governance }).success).toBe(true);
  });
});
