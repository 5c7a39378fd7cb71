// The identity part of the tenant policy (issue 37 items 1-2, D24) as a pure decision: which issuers
// a namespace may declare, the key sources the admin fixes (a tenant never pairs an issuer with keys
// of its own choosing), and the claim conditions ANDed into every rule for an issuer.
import { describe, expect, it } from 'vitest';
import {
  boundIdentity,
  IdentityPolicySchema,
  TenantPolicySchema,
  validateConfig,
  workspaceUnderPolicy,
} from '../../../gateway/config/index.js';

const LOGIN = 'https://login.example.com';
const OTHER = 'https://other.example.com';

const policy = IdentityPolicySchema.parse({
  issuers: [
    {
      issuer: LOGIN,
      jwksUri: `${LOGIN}/keys`,
      introspection: { endpoint: `${LOGIN}/introspect` },
      namespaces: ['team-a', 'team-b'],
      claims: {
        'team-a': [{ claim: 'groups', contains: 'team-a' }],
        '*': [{ claim: 'tenant', equals: 'acme' }],
      },
    },
    { issuer: OTHER, namespaces: ['*'] },
  ],
});

const catchAll = (issuer: string) => ({ name: 'everyone', issuer });

describe('the identity policy', () => {
  it('policy:identity-deny-by-default — a policy block with no identity part allows no issuer', () => {
    const defaults = TenantPolicySchema.parse({});
    expect(defaults.identity).toEqual({ issuers: [] });
    const bound = boundIdentity(
      { issuers: [{ issuer: LOGIN }], rules: [catchAll(LOGIN)] },
      defaults.identity,
      'team-a',
    );
    expect(bound).toEqual({
      refused: expect.objectContaining({ reason: 'IssuerNotAllowed', index: 0, field: 'issuer' }),
    });
  });

  it('policy:identity-issuer-not-allowed — an issuer not listed, or listed for other namespaces only, is refused', () => {
    const unlisted = boundIdentity(
      { issuers: [{ issuer: OTHER }, { issuer: 'https://evil.example.com' }], rules: [catchAll(OTHER)] },
      policy,
      'team-a',
    );
    expect(unlisted).toEqual({ refused: expect.objectContaining({ reason: 'IssuerNotAllowed', index: 1 }) });
    const elsewhere = boundIdentity(
      { issuers: [{ issuer: LOGIN }], rules: [catchAll(LOGIN)] },
      policy,
      'evil',
    );
    expect('refused' in elsewhere && elsewhere.refused.message).toContain(
      `issuer ${LOGIN} is not one the tenant policy lets namespace evil trust`,
    );
    expect('identity' in boundIdentity({ issuers: [{ issuer: OTHER }], rules: [] }, policy, 'evil')).toBe(
      true,
    );
  });

  it('policy:identity-key-source-fixed — a tenant JWKS or introspection endpoint other than the policy’s is refused; one the policy does not fix cannot be named at all', () => {
    const ownKeys = boundIdentity(
      { issuers: [{ issuer: LOGIN, jwksUri: 'https://evil.example.com/keys' }], rules: [] },
      policy,
      'team-a',
    );
    expect(ownKeys).toEqual({
      refused: expect.objectContaining({ reason: 'KeySourceNotAllowed', field: 'jwksUri' }),
    });
    const ownEndpoint = boundIdentity(
      { issuers: [{ issuer: LOGIN, introspection: { endpoint: 'https://evil.example.com/i' } }], rules: [] },
      policy,
      'team-a',
    );
    expect(ownEndpoint).toEqual({
      refused: expect.objectContaining({ reason: 'KeySourceNotAllowed', field: 'introspection.endpoint' }),
    });
    // OTHER's keys come from its own metadata: a tenant naming any JWKS is pairing it with its own.
    const unfixed = boundIdentity(
      { issuers: [{ issuer: OTHER, jwksUri: 'https://evil.example.com/keys' }], rules: [] },
      policy,
      'team-a',
    );
    expect('refused' in unfixed && unfixed.refused.message).toContain("from the issuer's own metadata");
    const repeated = boundIdentity(
      { issuers: [{ issuer: LOGIN, jwksUri: `${LOGIN}/keys` }], rules: [] },
      policy,
      'team-b',
    );
    expect('identity' in repeated).toBe(true);
  });

  it('policy:identity-fills-key-source — the policy’s JWKS and introspection endpoint are used where the tenant gives none', () => {
    const issuer: { issuer: string; introspection: { clientId: string; endpoint?: string } } = {
      issuer: LOGIN,
      introspection: { clientId: 'agw' },
    };
    const bound = boundIdentity({ issuers: [issuer], rules: [] }, policy, 'team-b');
    expect(bound).toEqual({
      identity: {
        issuers: [
          {
            issuer: LOGIN,
            jwksUri: `${LOGIN}/keys`,
            introspection: { clientId: 'agw', endpoint: `${LOGIN}/introspect` },
          },
        ],
        rules: [],
      },
    });
  });

  it('policy:identity-claims-anded — the namespace’s (and every namespace’s) conditions are added to every rule for the issuer, once', () => {
    const bound = boundIdentity(
      {
        issuers: [{ issuer: LOGIN }, { issuer: OTHER }],
        rules: [
          catchAll(LOGIN),
          { name: 'admins', issuer: LOGIN, when: [{ claim: 'groups', contains: 'team-a' }] },
          catchAll(OTHER),
        ],
      },
      policy,
      'team-a',
    );
    if (!('identity' in bound)) throw new Error('refused');
    expect(bound.identity.rules).toEqual([
      {
        ...catchAll(LOGIN),
        when: [
          { claim: 'tenant', equals: 'acme' },
          { claim: 'groups', contains: 'team-a' },
        ],
      },
      {
        name: 'admins',
        issuer: LOGIN,
        when: [
          { claim: 'groups', contains: 'team-a' },
          { claim: 'tenant', equals: 'acme' },
        ],
      },
      catchAll(OTHER),
    ]);
    const teamB = boundIdentity({ issuers: [{ issuer: LOGIN }], rules: [catchAll(LOGIN)] }, policy, 'team-b');
    expect('identity' in teamB && (teamB.identity.rules[0] as { when?: unknown } | undefined)?.when).toEqual([
      { claim: 'tenant', equals: 'acme' },
    ]);
  });

  it('policy:identity-workspace-dropped — a file workspace refused by the policy is served without its identity section; its namespace is its name when unset', () => {
    const parsed = validateConfig({
      version: 1,
      oauth: { resource: 'https://gw.example.com/mcp' },
      workspaces: [
        { name: 'team-a', identity: { issuers: [{ issuer: LOGIN }], rules: [catchAll(LOGIN)] } },
        { name: 'evil', identity: { issuers: [{ issuer: LOGIN }], rules: [catchAll(LOGIN)] } },
      ],
    });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
    const [teamA, evil] = parsed.config.workspaces;
    if (teamA === undefined || evil === undefined) throw new Error('workspaces missing');
    const served = workspaceUnderPolicy(teamA, policy);
    expect(served.refused).toBeUndefined();
    expect(served.workspace.identity?.issuers[0]?.jwksUri).toBe(`${LOGIN}/keys`);
    const dropped = workspaceUnderPolicy(evil, policy);
    expect(dropped.refused?.reason).toBe('IssuerNotAllowed');
    expect(dropped.workspace.identity).toBeUndefined();
    expect(dropped.workspace.name).toBe('evil');
    expect(Object.isFrozen(dropped.workspace)).toBe(true);
  });

  it('policy:identity-schema — refuses a duplicate issuer, claims for a namespace the issuer is not allowed in, and a non-https issuer', () => {
    const result = IdentityPolicySchema.safeParse({
      issuers: [
        { issuer: LOGIN, namespaces: ['team-a'], claims: { 'team-b': [{ claim: 'groups', contains: 'x' }] } },
        { issuer: LOGIN, namespaces: ['*'] },
        { issuer: 'http://login.example.com', namespaces: ['*'] },
      ],
    });
    expect(result.success).toBe(false);
    const messages = result.error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`) ?? [];
    expect(messages).toEqual(
      expect.arrayContaining([
        'issuers.0.claims.team-b: names a namespace that is not in this issuer’s namespaces',
        'issuers.1.issuer: duplicate issuer',
        'issuers.2.issuer: must be an https URL (http only on a loopback host)',
      ]),
    );
  });
});
