// The operator's half of the identity policy (issue 37 items 1-2, D24): a Workspace may declare only
// the issuers the admin lets its namespace trust, with no key source of its own choosing; otherwise
// no identity is rendered (keys and sources keep serving) and the Workspace says why, with a Warning
// Event. With no identity policy (the operator's defaults) no issuer is allowed. What it renders
// carries the policy's key source and claim conditions.
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_TENANT_POLICY,
  TenantPolicySchema,
  type TenantPolicy,
} from '../../../gateway/config/index.js';
import { ReachPolicy } from '../../../gateway/reach/index.js';
import { MemoryEventRecorder } from '../../../operator/kube/event-recorder.js';
import { controllerWith, fragmentOf, lastStatus } from '../../support/operator-controller.js';
import { cachedMeta, workspace } from '../../support/operator-objects.js';

const ns = 'team-a';
const LOGIN = 'https://login.example.com';
const GROUP = 'team-a-agents';

const allowLogin = TenantPolicySchema.parse({
  identity: {
    issuers: [
      {
        issuer: LOGIN,
        jwksUri: `${LOGIN}/keys`,
        namespaces: [ns],
        claims: { [ns]: [{ claim: 'groups', contains: GROUP }] },
      },
      { issuer: 'https://elsewhere.example.com', namespaces: ['team-b'] },
    ],
  },
});

async function reconcile(policy: TenantPolicy, identity: Record<string, unknown>) {
  const events = new MemoryEventRecorder();
  const ws = workspace<Record<string, unknown>>(cachedMeta('demo', ns), { identity });
  const { controller, writer } = controllerWith(
    { workspaces: () => [ws] },
    {
      policy: new ReachPolicy(policy),
      resolver: () => Promise.resolve(['203.0.113.10']),
      events,
    },
  );
  await controller.reconcile(`${ns}/demo`);
  const status = lastStatus(writer, 'demo')!;
  const fragment = fragmentOf(writer, 'agw-ws-demo-c0');
  return { status, events, fragment };
}

const catchAll = (issuer: Record<string, unknown>) => ({
  issuers: [issuer],
  rules: [{ name: 'everyone', issuer: issuer['issuer'] }],
});

describe('the operator applies the identity policy', () => {
  it('operator:identity-default-deny — with no identity policy (the defaults) a Workspace may trust no issuer: Ready=False IssuerNotAllowed, nothing rendered, the workspace still served', async () => {
    const { status, events, fragment } = await reconcile(DEFAULT_TENANT_POLICY, catchAll({ issuer: LOGIN }));
    expect(status.conditions[0]).toMatchObject({ status: 'False', reason: 'IssuerNotAllowed' });
    expect(status.conditions[0]?.message).toContain('served by the gateways; spec.identity not used');
    expect(status.issuers).toBe(0);
    expect(fragment).not.toBe('');
    expect(fragment).not.toContain('identity');
    expect(events.events).toEqual([expect.objectContaining({ type: 'Warning', reason: 'IssuerNotAllowed' })]);
  });

  it('operator:identity-issuer-not-allowed — an issuer the policy allows only another namespace is refused, naming the field and the namespace', async () => {
    const { status, fragment } = await reconcile(
      allowLogin,
      catchAll({ issuer: 'https://elsewhere.example.com' }),
    );
    expect(status.conditions[0]).toMatchObject({ status: 'False', reason: 'IssuerNotAllowed' });
    expect(status.conditions[0]?.message).toContain(
      'spec.identity.issuers[0].issuer: issuer https://elsewhere.example.com is not one the tenant policy lets namespace team-a trust',
    );
    expect(fragment).not.toContain('identity');
  });

  it('operator:identity-own-jwks — the allowed issuer with a JWKS of the tenant’s choosing is refused (KeySourceNotAllowed)', async () => {
    const { status, events, fragment } = await reconcile(
      allowLogin,
      catchAll({ issuer: LOGIN, jwks: { uri: 'https://evil.example.com/keys' } }),
    );
    expect(status.conditions[0]).toMatchObject({ status: 'False', reason: 'KeySourceNotAllowed' });
    expect(status.conditions[0]?.message).toContain(
      'spec.identity.issuers[0].jwks.uri: differs from the JWKS',
    );
    expect(fragment).not.toContain('evil.example.com');
    expect(events.events[0]).toMatchObject({ type: 'Warning', reason: 'KeySourceNotAllowed' });
  });

  it('operator:identity-policy-rendered — an allowed issuer is rendered with the policy’s JWKS and the namespace’s claim conditions in every rule', async () => {
    const { status, fragment } = await reconcile(allowLogin, catchAll({ issuer: LOGIN, jwks: {} }));
    expect(status.conditions[0]).toMatchObject({ status: 'True', reason: 'Rendered' });
    expect(status.issuers).toBe(1);
    const rendered = (JSON.parse(fragment) as { identity: { issuers: unknown[]; rules: unknown[] } })
      .identity;
    expect(rendered.issuers).toEqual([expect.objectContaining({ issuer: LOGIN, jwksUri: `${LOGIN}/keys` })]);
    expect(rendered.rules).toEqual([
      expect.objectContaining({ name: 'everyone', when: [{ claim: 'groups', contains: GROUP }] }),
    ]);
    // The admin's conditions are the gateways' business, not the tenant's status.
    expect(status.conditions[0]?.message).not.toContain(GROUP);
  });
});
