// Identity → permissions in one workspace (issue 29, D22; issue 37, D24). The workspace is chosen
// before this, by the token's audience (protected-resource.ts), and verified the token with its own
// declarations; here its identity rules that name the issuer are matched against the claims and the
// first matching rule decides (none: a refusal). No other workspace's rules are ever read, so no
// tenant can admit, deny or capture another tenant's callers. The principal it makes is the one API
// keys make, with a synthetic key id derived from workspace, issuer and subject, so limits, caches
// and bridge bindings treat an identity like a key of that workspace only. No claim value leaves
// this module but in the principal (the subject, for later upstream token exchange; the claims, for
// CEL policies in gateway/governance) and nothing here is logged.
import { createHash } from 'node:crypto';
import type { WorkspaceConfig } from '../config/index.js';
import type { ClaimCondition } from '../config/oauth-schema.js';
import type { Principal } from './principal.js';

type WorkspaceIdentity = NonNullable<WorkspaceConfig['identity']>;
export type IdentityRule = WorkspaceIdentity['rules'][number];
type Claims = Readonly<Record<string, unknown>>;

/** The caller's subject: `sub`, or `client_id` for a machine (client credentials) token. */
export function subjectOf(claims: Claims): string | undefined {
  if (typeof claims['sub'] === 'string') return claims['sub'];
  return typeof claims['client_id'] === 'string' ? claims['client_id'] : undefined;
}

/** The granted scopes: `scope` (space-separated, RFC 9068/7662) and `scp` (Entra, Okta). */
export function scopesOf(claims: Claims): ReadonlySet<string> {
  const scopes = new Set<string>();
  const add = (value: unknown) => {
    if (typeof value === 'string') for (const word of value.split(' ')) if (word !== '') scopes.add(word);
    if (Array.isArray(value)) for (const item of value) if (typeof item === 'string') scopes.add(item);
  };
  add(claims['scope']);
  add(claims['scp']);
  return scopes;
}

function claimAt(claims: Claims, path: string): unknown {
  let value: unknown = claims;
  for (const part of path.split('.')) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    if (!Object.hasOwn(value, part)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

function holds(condition: ClaimCondition, claims: Claims, scopes: ReadonlySet<string>): boolean {
  if ('equals' in condition) return claimAt(claims, condition.claim) === condition.equals;
  if (condition.claim === 'scope' || condition.claim === 'scp') return scopes.has(condition.contains);
  const value = claimAt(claims, condition.claim);
  if (Array.isArray(value)) return value.includes(condition.contains);
  return typeof value === 'string' && value.split(' ').includes(condition.contains);
}

function firstRule(
  identity: WorkspaceIdentity,
  issuer: string,
  claims: Claims,
  scopes: ReadonlySet<string>,
): IdentityRule | undefined {
  return identity.rules.find(
    (rule) => rule.issuer === issuer && rule.when.every((condition) => holds(condition, claims, scopes)),
  );
}

/** The scopes that would make this read caller a writer here (RFC 6750 step-up): the fewest a
 * write rule asks for on top of what the token has, with that rule then first to match. Undefined
 * when no scope would help (another claim is missing), so no step-up is offered. */
function stepUpScopes(
  identity: WorkspaceIdentity,
  issuer: string,
  claims: Claims,
  scopes: ReadonlySet<string>,
): readonly string[] | undefined {
  let best: readonly string[] | undefined;
  for (const rule of identity.rules) {
    if (rule.issuer !== issuer || rule.access !== 'write') continue;
    const needed = rule.when
      .filter((c): c is Extract<ClaimCondition, { contains: string }> => 'contains' in c)
      .filter((c) => (c.claim === 'scope' || c.claim === 'scp') && !scopes.has(c.contains))
      .map((c) => c.contains);
    if (needed.length === 0) continue;
    const widened = new Set([...scopes, ...needed]);
    if (firstRule(identity, issuer, claims, widened)?.access !== 'write') continue;
    if (best === undefined || needed.length < best.length) best = needed;
  }
  return best;
}

export type Admission =
  | {
      readonly ok: true;
      readonly workspace: WorkspaceConfig;
      readonly rule: IdentityRule;
      readonly stepUp: readonly string[] | undefined;
    }
  | { readonly ok: false; readonly reason: 'no-workspace' };

/** Whether `workspace` admits this identity, and by which rule. */
export function admit(workspace: WorkspaceConfig, issuer: string, claims: Claims): Admission {
  const identity = workspace.identity;
  if (identity === undefined) return { ok: false, reason: 'no-workspace' };
  const scopes = scopesOf(claims);
  const rule = firstRule(identity, issuer, claims, scopes);
  if (rule === undefined) return { ok: false, reason: 'no-workspace' };
  const stepUp = rule.access === 'write' ? undefined : stepUpScopes(identity, issuer, claims, scopes);
  return { ok: true, workspace, rule, stepUp };
}

/** `oidc:` and a digest of workspace, issuer and subject: stable per identity and workspace, no
 * claim value in it. The workspace is part of it because two tenants may declare the same issuer
 * URL (one of them with keys of its own choosing): everything keyed by key id — caps, sealed
 * state, caches, limits — must never be shared between their callers. */
export function identityKeyId(workspace: string, issuer: string, subject: string): string {
  const digest = createHash('sha256').update(`${workspace}\n${issuer}\n${subject}`).digest('hex');
  return `oidc:${digest.slice(0, 24)}`;
}

export function principalForIdentity(
  admission: Extract<Admission, { ok: true }>,
  issuer: string,
  subject: string,
  claims: Claims,
  stepUpChallenge: ((scopes: readonly string[]) => string) | undefined,
  resource?: string,
): Principal {
  const { workspace, rule, stepUp } = admission;
  const keyId = identityKeyId(workspace.name, issuer, subject);
  return {
    keyId,
    keyFingerprint: keyId.slice(0, 'oidc:'.length + 12),
    keyName: rule.name,
    workspace,
    access: rule.access,
    sourcePatterns: rule.sources,
    toolPatterns: rule.tools,
    limits: rule.limits,
    toolDisclosure: rule.toolDisclosure ?? workspace.toolDisclosure,
    ...(rule.policies === undefined ? {} : { policies: rule.policies }),
    oidc: {
      issuer,
      subject,
      rule: rule.name,
      ...(resource === undefined ? {} : { resource }),
      scopes: [...scopesOf(claims)],
      claims,
      ...(typeof claims['exp'] === 'number' && Number.isFinite(claims['exp'])
        ? { expiresAtMs: claims['exp'] * 1000 }
        : {}),
      ...(stepUp === undefined || stepUpChallenge === undefined
        ? {}
        : { stepUp: { scopes: stepUp, challenge: stepUpChallenge([...scopesOf(claims), ...stepUp]) } }),
    },
  };
}
