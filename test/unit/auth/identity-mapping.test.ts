// Identity → permissions in one workspace (gateway/auth/identity-mapping.ts) on configs parsed by
// the real schema, with no authorization server: the first matching rule of the workspace decides
// (its audience chose the workspace, D24), claim conditions follow dotted paths through own
// properties only, `scope` and `scp` are one set, the step-up offers the fewest scopes that make a
// writer, and the key id is bound to the workspace.
import { describe, expect, it } from 'vitest';
import {
  admit,
  identityKeyId,
  principalForIdentity,
  scopesOf,
  subjectOf,
} from '../../../gateway/auth/identity-mapping.js';
import { validateConfig, type WorkspaceConfig } from '../../../gateway/config/index.js';

const ISSUER = 'https://id.example';
const OTHER = 'https://other.example';

function workspaces(...documents: Record<string, unknown>[]): WorkspaceConfig[] {
  const result = validateConfig({
    version: 1,
    server: { publicUrl: 'https://gw.example' },
    oauth: {},
    workspaces: documents,
  });
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return [...result.config.workspaces];
}

function workspace(name: string, rules: Record<string, unknown>[], issuers = [ISSUER]) {
  return {
    name,
    identity: {
      issuers: issuers.map((issuer) => ({ issuer })),
      rules: rules.map((rule) => ({ issuer: ISSUER, ...rule })),
    },
  };
}

/** The one workspace of a parsed config. */
/** The rule `writers`: members of `group` whose token carries the scope mcp:write, with write access. */
function scopedWriters(group: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'writers',
    when: [
      { claim: 'groups', contains: group },
      { claim: 'scope', contains: 'mcp:write' },
    ],
    access: 'write',
    ...extra,
  };
}

function only(list: readonly WorkspaceConfig[]): WorkspaceConfig {
  const first = list[0];
  if (first === undefined) throw new Error('no workspace');
  return first;
}

function admitted(candidates: WorkspaceConfig[], claims: Record<string, unknown>, issuer = ISSUER) {
  const admission = admit(only(candidates), issuer, claims);
  if (!admission.ok) throw new Error(`not admitted: ${admission.reason}`);
  return admission;
}

describe('rules and workspaces', () => {
  it('oauth:mapping-first-match — the first rule that matches decides, even when a later one gives more', () => {
    const all = workspaces(
      workspace('team', [
        { name: 'readers', when: [{ claim: 'groups', contains: 'staff' }], access: 'read' },
        { name: 'writers', when: [{ claim: 'groups', contains: 'staff' }], access: 'write' },
      ]),
    );
    const admission = admitted(all, { sub: 'a', groups: ['staff'] });
    expect(admission.rule.name).toBe('readers');
    expect(admission.rule.access).toBe('read');
  });

  it("oauth:mapping-own-rules-only — a workspace admits by its own rules; another workspace's catch-all neither captures nor makes ambiguous", () => {
    const all = workspaces(
      workspace('one', [{ name: 'r', when: [{ claim: 'sub', equals: 'carol' }] }]),
      workspace('catch-all', [{ name: 'everyone', access: 'write' }]),
      workspace('elsewhere', [{ name: 'r', issuer: OTHER, when: [] }], [ISSUER, OTHER]),
      { name: 'keys-only' },
    );
    const [one, catchAll, elsewhere, keysOnly] = all as [
      WorkspaceConfig,
      WorkspaceConfig,
      WorkspaceConfig,
      WorkspaceConfig,
    ];
    expect(admit(one, ISSUER, { sub: 'carol' })).toMatchObject({ ok: true, workspace: { name: 'one' } });
    expect(admit(one, ISSUER, { sub: 'erin' })).toEqual({ ok: false, reason: 'no-workspace' });
    expect(admit(catchAll, ISSUER, { sub: 'carol' })).toMatchObject({ ok: true, rule: { name: 'everyone' } });
    expect(admit(elsewhere, OTHER, { sub: 'anyone' }).ok).toBe(true);
    expect(admit(elsewhere, ISSUER, { sub: 'anyone' }).ok).toBe(false);
    expect(admit(keysOnly, ISSUER, { sub: 'carol' })).toEqual({ ok: false, reason: 'no-workspace' });
  });

  it('oauth:mapping-all-conditions — every condition of a rule must hold; an empty list admits any identity of the issuer', () => {
    const all = workspaces(
      workspace('team', [
        {
          name: 'both',
          when: [
            { claim: 'groups', contains: 'a' },
            { claim: 'tenant', equals: 't1' },
          ],
        },
      ]),
    );
    expect(admit(only(all), ISSUER, { groups: ['a'], tenant: 't2' }).ok).toBe(false);
    expect(admit(only(all), ISSUER, { groups: ['a'], tenant: 't1' }).ok).toBe(true);
    const open = workspaces(workspace('open', [{ name: 'any' }]));
    expect(admit(only(open), ISSUER, {}).ok).toBe(true);
    expect(admit(only(open), OTHER, {}).ok).toBe(false);
  });
});

describe('claim conditions', () => {
  const one = (condition: Record<string, unknown>) =>
    workspaces(workspace('w', [{ name: 'r', when: [condition] }]));

  it('oauth:mapping-claim-paths — dotted paths reach nested objects; arrays, missing parts and inherited properties do not match', () => {
    const roles = one({ claim: 'realm_access.roles', contains: 'agents' });
    expect(admit(only(roles), ISSUER, { realm_access: { roles: ['agents', 'x'] } }).ok).toBe(true);
    expect(admit(only(roles), ISSUER, { realm_access: { roles: ['x'] } }).ok).toBe(false);
    expect(admit(only(roles), ISSUER, { realm_access: [{ roles: ['agents'] }] }).ok).toBe(false);
    expect(admit(only(roles), ISSUER, { realm_access: 'agents' }).ok).toBe(false);
    expect(admit(only(roles), ISSUER, {}).ok).toBe(false);
    const deep = one({ claim: 'a.b.c', equals: 'v' });
    expect(admit(only(deep), ISSUER, { a: { b: { c: 'v' } } }).ok).toBe(true);
    expect(admit(only(deep), ISSUER, { 'a.b.c': 'v' }).ok).toBe(false);
    const inherited = one({ claim: 'constructor.name', equals: 'Object' });
    expect(admit(only(inherited), ISSUER, {}).ok).toBe(false);
  });

  it('oauth:mapping-equals-contains — equals is exact and typed; contains is an array element or a word of a string', () => {
    const equals = one({ claim: 'tenant', equals: '42' });
    expect(admit(only(equals), ISSUER, { tenant: '42' }).ok).toBe(true);
    expect(admit(only(equals), ISSUER, { tenant: 42 }).ok).toBe(false);
    expect(admit(only(equals), ISSUER, { tenant: ['42'] }).ok).toBe(false);
    const contains = one({ claim: 'groups', contains: 'ops' });
    expect(admit(only(contains), ISSUER, { groups: ['dev', 'ops'] }).ok).toBe(true);
    expect(admit(only(contains), ISSUER, { groups: 'dev ops' }).ok).toBe(true);
    expect(admit(only(contains), ISSUER, { groups: 'devops' }).ok).toBe(false);
    expect(admit(only(contains), ISSUER, { groups: ['devops'] }).ok).toBe(false);
  });

  it('oauth:mapping-scope-scp — scope (space-separated) and scp (array, Entra/Okta) are one set for either condition', () => {
    expect([...scopesOf({ scope: 'a  b', scp: ['b', 'c', 7] })].sort()).toEqual(['a', 'b', 'c']);
    expect([...scopesOf({ scope: ['x'], scp: 'y z' })].sort()).toEqual(['x', 'y', 'z']);
    expect(scopesOf({}).size).toBe(0);
    for (const claim of ['scope', 'scp']) {
      const all = one({ claim, contains: 'mcp:write' });
      expect(admit(only(all), ISSUER, { scp: ['mcp:write'] }).ok).toBe(true);
      expect(admit(only(all), ISSUER, { scope: 'mcp:read mcp:write' }).ok).toBe(true);
      expect(admit(only(all), ISSUER, { scope: 'mcp:read' }).ok).toBe(false);
    }
  });

  it('oauth:mapping-subject — sub, else client_id for a machine token, else none', () => {
    expect(subjectOf({ sub: 'u', client_id: 'c' })).toBe('u');
    expect(subjectOf({ client_id: 'c' })).toBe('c');
    expect(subjectOf({ sub: 5 })).toBeUndefined();
  });
});

describe('step-up and the principal', () => {
  const team = () =>
    workspaces(
      workspace('team', [
        scopedWriters('staff', { tools: ['demo__*'] }),
        {
          name: 'admins',
          when: [
            { claim: 'groups', contains: 'staff' },
            { claim: 'scope', contains: 'a:1' },
            { claim: 'scope', contains: 'a:2' },
          ],
          access: 'write',
        },
        { name: 'sudo', when: [{ claim: 'groups', contains: 'root' }], access: 'write' },
        { name: 'readers', when: [{ claim: 'groups', contains: 'staff' }] },
      ]),
    );

  it('oauth:mapping-step-up — a reader is offered the fewest scopes that make a writer; none when another claim is missing', () => {
    const reader = admitted(team(), { sub: 'a', groups: ['staff'], scope: 'mcp:read' });
    expect(reader.rule.name).toBe('readers');
    expect(reader.stepUp).toEqual(['mcp:write']);
    const writer = admitted(team(), { sub: 'a', groups: ['staff'], scope: 'mcp:write' });
    expect(writer.rule.name).toBe('writers');
    expect(writer.stepUp).toBeUndefined();
    const outsider = workspaces(workspace('w', [scopedWriters('admins'), { name: 'readers' }]));
    expect(admitted(outsider, { sub: 'b', groups: ['staff'] }).stepUp).toBeUndefined();
  });

  it('oauth:mapping-principal — the principal has the rule’s permissions, a key id with no claim value, and the step-up challenge over every scope', () => {
    const claims = { sub: 'alice@example.com', groups: ['staff'], scope: 'mcp:read' };
    const admission = admitted(team(), claims);
    const principal = principalForIdentity(
      admission,
      ISSUER,
      'alice@example.com',
      claims,
      (scopes) => `challenge ${scopes.join(' ')}`,
    );
    expect(principal.keyId).toBe(identityKeyId('team', ISSUER, 'alice@example.com'));
    expect(principal.keyId).toMatch(/^oidc:[0-9a-f]{24}$/);
    expect(identityKeyId('team', OTHER, 'alice@example.com')).not.toBe(principal.keyId);
    // oauth:workspace-bound-key-id — the same issuer and subject in another workspace is another key.
    expect(identityKeyId('evil', ISSUER, 'alice@example.com')).not.toBe(principal.keyId);
    expect(principal).toMatchObject({
      keyName: 'readers',
      access: 'read',
      sourcePatterns: ['*'],
      toolPatterns: ['*'],
      workspace: { name: 'team' },
      oidc: {
        issuer: ISSUER,
        subject: 'alice@example.com',
        rule: 'readers',
        scopes: ['mcp:read'],
        stepUp: { scopes: ['mcp:write'], challenge: 'challenge mcp:read mcp:write' },
      },
    });
    const writerClaims = { ...claims, scope: 'mcp:write' };
    const writer = principalForIdentity(admitted(team(), writerClaims), ISSUER, 'a', writerClaims, undefined);
    expect(writer).toMatchObject({ access: 'write', toolPatterns: ['demo__*'] });
    expect(writer.oidc?.stepUp).toBeUndefined();
    expect(writer.oidc?.expiresAtMs).toBeUndefined();
    const expiring = { ...writerClaims, exp: 1_900_000_000 };
    const timed = principalForIdentity(admitted(team(), expiring), ISSUER, 'a', expiring, undefined);
    expect(timed.oidc?.expiresAtMs).toBe(1_900_000_000_000);
  });
});
