// Workspace spec.identity (issue 29) through the operator: the plan renders it into a workspace the
// gateway's contract accepts, the introspection secret only into the credentials Secret, and
// refuses (fail closed: no identity rendered) what the tenant reach policy denies, with a Ready
// condition and a Warning Event on the Workspace.
import { describe, expect, it } from 'vitest';
import { validateWorkspace } from '../../../gateway/config/config-loader.js';
import { TenantPolicySchema } from '../../../gateway/config/index.js';
import { credentialSecretName, renderWorkspace } from '../../../gateway/config/kube/index.js';
import { renderedWorkspaceProblems } from '../../../gateway/config/kube/rendered-workspace-rules.js';
import { ReachPolicy } from '../../../gateway/reach/index.js';
import { reachCheck } from '../../../operator/controllers/plan/reach-check.js';
import type { WorkspaceIdentityView } from '../../../operator/controllers/plan/resource-views.js';
import type { PlanInput } from '../../../operator/controllers/plan/plan-input.js';
import { planWorkspace } from '../../../operator/controllers/plan/workspace-plan.js';
import { MemoryEventRecorder } from '../../../operator/kube/event-recorder.js';
import { controllerWith, fragmentOf, lastStatus, resolverOf } from '../../support/operator-controller.js';
import {
  cachedMeta as meta,
  cachedSecrets,
  planInput,
  TENANT as ns,
  workspace,
  type TenantSecrets,
} from '../../support/operator-objects.js';
const SECRET_VALUE = 's3cr3t-introspection-value';
type IssuerView = WorkspaceIdentityView['issuers'][number];

const identity: WorkspaceIdentityView = {
  issuers: [
    { issuer: 'https://login.example.com/realms/acme', jwks: {}, tokenTypes: ['at+jwt', 'jwt'] },
    {
      issuer: 'https://opaque.example.com',
      introspection: {
        endpoint: 'https://opaque.example.com/introspect',
        clientId: 'agw',
        clientSecret: { secretKeyRef: { name: 'introspection', key: 'secret' } },
        tokenPrefix: 'op_',
      },
    },
  ],
  rules: [
    {
      name: 'payments',
      issuer: 'https://login.example.com/realms/acme',
      when: [{ claim: 'groups', contains: 'payments-agents' }],
      access: 'write',
      tools: ['billing__*'],
    },
    { name: 'machines', issuer: 'https://opaque.example.com' },
  ],
};

/** The Workspace `demo` with `spec`; the introspection client secret is there unless `secrets` says. */
function input(
  spec: Record<string, unknown>,
  secrets: TenantSecrets = { introspection: { secret: SECRET_VALUE } },
  overrides: Partial<PlanInput> = {},
): PlanInput {
  return planInput({ workspace: { metadata: meta('demo'), spec }, ...overrides }, secrets);
}

// The admin lets this namespace trust both issuers (no identity policy: none, D24), the second with
// the introspection endpoint the spec repeats.
const policy = new ReachPolicy(
  TenantPolicySchema.parse({
    network: { denyCidrs: ['10.0.0.0/8'] },
    identity: {
      issuers: [
        { issuer: 'https://login.example.com/realms/acme', namespaces: [ns] },
        {
          issuer: 'https://opaque.example.com',
          introspection: { endpoint: 'https://opaque.example.com/introspect' },
          namespaces: [ns],
        },
      ],
    },
  }),
);
const resolved = new Map([
  ['login.example.com', ['203.0.113.10']],
  ['opaque.example.com', ['203.0.113.11']],
]);

describe('Workspace spec.identity in the operator plan', () => {
  it('operator:identity-plan — renders an identity section the gateway contract and the rendered-object rules accept, with jwks.uri as jwksUri and the client secret as a reference', () => {
    const plan = planWorkspace(
      input({ identity }, undefined, {
        reach: reachCheck(policy, { namespace: ns, workspace: 'demo' }, resolved),
      }),
    );
    expect(plan.identity?.condition).toMatchObject({ ready: true, reason: 'Rendered' });
    expect(plan.identity?.issuers).toBe(2);
    const rendered = renderWorkspace(plan.render);
    const configMap = rendered.parts.find((p) => p.kind === 'ConfigMap')?.data['fragment.json'] ?? '';
    const document = JSON.parse(configMap) as Record<string, unknown>;
    const result = validateWorkspace({ ...document, namespace: ns, keys: [] });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(renderedWorkspaceProblems(result.workspace)).toEqual([]);
    const issuers = result.workspace.identity?.issuers ?? [];
    expect(issuers[0]).toMatchObject({
      issuer: 'https://login.example.com/realms/acme',
      algorithms: ['RS256', 'PS256', 'ES256', 'EdDSA'],
    });
    expect(issuers[1]?.introspection?.clientSecret).toEqual({
      kubernetesSecret: {
        name: credentialSecretName('demo'),
        key: expect.stringMatching(/^cred\.workspace\.identity\.issuer1\.clientSecret\./),
      },
    });
    expect(result.workspace.identity?.rules[1]).toMatchObject({
      access: 'read',
      sources: ['*'],
      tools: ['*'],
    });
  });

  it('operator:identity-secret-only-in-credentials — the introspection secret is in the credentials Secret only, never in a ConfigMap fragment', () => {
    const plan = planWorkspace(input({ identity }));
    expect([...plan.render.credentials.values()]).toEqual([SECRET_VALUE]);
    const rendered = renderWorkspace(plan.render);
    for (const part of rendered.parts.filter((p) => p.kind === 'ConfigMap'))
      expect(JSON.stringify(part.data)).not.toContain(SECRET_VALUE);
    const secret = rendered.parts.find((p) => p.kind === 'Secret');
    expect(Object.values(secret?.data ?? {})).toContain(SECRET_VALUE);
    expect(secret?.data['fragment.json']).not.toContain(SECRET_VALUE);
  });

  it('operator:identity-reach-refused — an issuer, JWKS or introspection host the tenant policy denies renders no identity and copies no secret (AddressNotAllowed)', () => {
    const [jwt, opaque] = identity.issuers as [IssuerView, IssuerView];
    const introspecting = opaque.introspection as NonNullable<IssuerView['introspection']>;
    const cases: [WorkspaceIdentityView, string][] = [
      [
        {
          issuers: [{ ...jwt, issuer: 'https://10.0.0.5/realms/x' }, opaque],
          rules: [{ name: 'r', issuer: 'https://10.0.0.5/realms/x' }],
        },
        'spec.identity.issuers[0].issuer: host 10.0.0.5',
      ],
      [
        { ...identity, issuers: [{ ...jwt, jwks: { uri: 'http://127.0.0.1:9/jwks' } }, opaque] },
        'spec.identity.issuers[0].jwks.uri: host 127.0.0.1',
      ],
      [
        {
          ...identity,
          issuers: [
            jwt,
            {
              ...opaque,
              introspection: { ...introspecting, endpoint: 'https://169.254.169.254/introspect' },
            },
          ],
        },
        'spec.identity.issuers[1].introspection.endpoint: host 169.254.169.254',
      ],
    ];
    for (const [spec, message] of cases) {
      const plan = planWorkspace(
        input({ identity: spec }, undefined, {
          reach: reachCheck(policy, { namespace: ns, workspace: 'demo' }, resolved),
        }),
      );
      expect(plan.identity?.condition).toMatchObject({ ready: false, reason: 'AddressNotAllowed' });
      expect(plan.identity?.condition.message).toContain(message);
      expect(plan.identity?.issuers).toBe(0);
      expect(plan.render.identity).toBeUndefined();
      expect(plan.render.credentials.size).toBe(0);
    }
  });

  it('operator:identity-not-used — a missing Secret or a spec the gateway would refuse renders no identity and says which field', () => {
    const missing = planWorkspace(input({ identity }, {}));
    expect(missing.identity?.condition).toMatchObject({ ready: false, reason: 'SecretNotFound' });
    expect(missing.identity?.condition.message).toContain(
      'spec.identity.issuers[1].introspection.clientSecret',
    );
    expect(missing.render.identity).toBeUndefined();

    const invalid = planWorkspace(
      input({ identity: { ...identity, rules: [{ name: 'x', issuer: 'https://elsewhere.example.com' }] } }),
    );
    expect(invalid.identity?.condition).toMatchObject({ ready: false, reason: 'InvalidSpec' });
    expect(invalid.identity?.condition.message).toContain(
      'spec.identity.rules[0].issuer: must be one of identity.issuers',
    );
    expect(invalid.render.credentials.size).toBe(0);

    const badJwks = planWorkspace(
      input({
        identity: {
          issuers: [{ issuer: 'https://a.example.com', jwks: { uri: 'ftp://a.example.com/k' } }],
          rules: [{ name: 'r', issuer: 'https://a.example.com' }],
        },
      }),
    );
    expect(badJwks.identity?.condition.message).toContain(
      'spec.identity.issuers[0].jwks.uri: must be an https URL',
    );
  });
});

describe('WorkspaceController with spec.identity', () => {
  const run = async (spec: Record<string, unknown>, hosts: Record<string, string[]>) => {
    const events = new MemoryEventRecorder();
    const ws = workspace(meta('demo'), spec);
    const { controller, writer } = controllerWith(
      { workspaces: () => [ws], secret: cachedSecrets({ introspection: { secret: SECRET_VALUE } }) },
      { policy, resolver: resolverOf(hosts), events },
    );
    await controller.reconcile(`${ns}/demo`);
    const status = lastStatus(writer, 'demo')!;
    return { writer, events, status };
  };

  it('operator:identity-reach-event — resolves the issuer host first; a denied address makes the Workspace Ready=False AddressNotAllowed with a Warning Event, and the workspace is still rendered without identity', async () => {
    const { writer, events, status } = await run(
      { identity },
      { 'login.example.com': ['10.1.2.3'], 'opaque.example.com': ['203.0.113.11'] },
    );
    expect(status.conditions[0]).toMatchObject({ status: 'False', reason: 'AddressNotAllowed' });
    expect(status.conditions[0]?.message).toContain('served by the gateways; spec.identity not used');
    expect(status.conditions[0]?.message).toContain(
      'spec.identity.issuers[0].issuer: host login.example.com',
    );
    expect(status.issuers).toBe(0);
    expect(events.events).toEqual([
      expect.objectContaining({
        type: 'Warning',
        reason: 'AddressNotAllowed',
        subject: expect.objectContaining({ kind: 'Workspace', name: 'demo' }),
      }),
    ]);
    const fragment = fragmentOf(writer, 'agw-ws-demo-c0');
    expect(fragment).not.toContain('identity');
    const secret = writer.applied.find((o) => o.name === 'agw-ws-demo-s0');
    expect(JSON.stringify(secret?.data)).not.toContain(SECRET_VALUE);
  });

  it('operator:identity-status — a usable identity is Ready=True and counts its issuers in status.issuers', async () => {
    const { status, writer } = await run(
      { identity },
      { 'login.example.com': ['203.0.113.10'], 'opaque.example.com': ['203.0.113.11'] },
    );
    expect(status.conditions[0]).toMatchObject({ status: 'True', reason: 'Rendered' });
    expect(status.issuers).toBe(2);
    const fragment = fragmentOf(writer, 'agw-ws-demo-c0');
    expect(fragment).toContain('"identity"');
  });
});
