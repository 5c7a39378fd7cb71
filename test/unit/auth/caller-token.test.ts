// The caller's token handed to token exchange (auth/caller-token.ts, upstream/upstream-caller.ts):
// sealed onto the principal under a symbol, invisible to every way a principal or caller is
// serialised, read by the upstream side structurally, forgotten when the request ends, and
// attached only where a source exchanges it.
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  CALLER_TOKEN,
  forgetCallerToken,
  holdsCallerToken,
  sealCallerToken,
} from '../../../gateway/auth/caller-token.js';
import { admit, principalForIdentity } from '../../../gateway/auth/identity-mapping.js';
import type { Principal } from '../../../gateway/auth/index.js';
import { validateConfig } from '../../../gateway/config/index.js';
import {
  requireIdentity,
  runAsCaller,
  subjectKey,
  upstreamCallerOf,
  UpstreamIdentityRequiredError,
} from '../../../gateway/upstream/upstream-caller.js';

const ISSUER = 'https://id.example';
const TOKEN = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlLW9mLXRoZS1jYWxsZXI';

function principalIn(exchange: boolean, scope = 'mcp:read'): Principal {
  const credential = exchange
    ? {
        type: 'tokenExchange',
        clientId: { env: 'ID' },
        clientSecret: { env: 'SECRET' },
        issuer: ISSUER,
      }
    : undefined;
  const result = validateConfig({
    version: 1,
    server: { publicUrl: 'https://gw.example' },
    oauth: {},
    workspaces: [
      {
        name: 'team',
        mcpSources: [
          {
            name: 'up',
            transport: 'streamable-http',
            url: 'https://up.example/mcp',
            ...(credential === undefined ? {} : { credential }),
          },
        ],
        identity: {
          issuers: [{ issuer: ISSUER }],
          rules: [{ name: 'anyone', issuer: ISSUER, when: [] }],
        },
      },
    ],
  });
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  const claims = { sub: 'alice', scope };
  const team = result.config.workspaces[0];
  if (team === undefined) throw new Error('no workspace');
  const admission = admit(team, ISSUER, claims);
  if (!admission.ok) throw new Error('not admitted');
  return principalForIdentity(admission, ISSUER, 'alice', claims, undefined);
}

describe('sealing the caller token onto the principal', () => {
  it('upstream-oauth:caller-token-sealed — no serialisation of the principal or the caller shows the token', () => {
    const principal = sealCallerToken(principalIn(true), TOKEN);
    expect(holdsCallerToken(principal)).toBe(true);
    const caller = upstreamCallerOf(principal);
    const views = [
      JSON.stringify(principal),
      JSON.stringify({ ...principal }),
      inspect(principal, { depth: 10 }),
      inspect(principal, { depth: 10, showHidden: true }),
      JSON.stringify(Reflect.get(principal, CALLER_TOKEN)),
      String(Reflect.get(principal, CALLER_TOKEN)),
      JSON.stringify(caller),
      inspect(caller, { depth: 10 }),
      JSON.stringify(structuredClone({ ...principal, workspace: undefined })),
    ];
    for (const view of views) expect(view).not.toContain(TOKEN.slice(-12));
    expect(Object.keys(principal)).not.toContain(String(CALLER_TOKEN));
    expect(Object.getOwnPropertySymbols({ ...principal })).toEqual([]);
    // A copy made by spreading carries no token: it fails closed.
    expect(upstreamCallerOf({ ...principal }).identity).toBeUndefined();
  });

  it('upstream-oauth:caller-token-handover — the upstream side reads it by the shared symbol, only inside the caller’s context', () => {
    const principal = sealCallerToken(principalIn(true), TOKEN);
    const caller = upstreamCallerOf(principal);
    expect(caller.kind).toBe('oidc');
    expect(caller.identity).toMatchObject({ issuer: ISSUER, subject: 'alice', scopes: ['mcp:read'] });
    expect(runAsCaller(caller, () => requireIdentity().token)).toBe(TOKEN);
    expect(() => requireIdentity()).toThrow(UpstreamIdentityRequiredError);
  });

  it('upstream-oauth:caller-token-forgotten — once the request ends the token cannot be read, even by work that kept the caller', () => {
    const principal = sealCallerToken(principalIn(true), TOKEN);
    const caller = upstreamCallerOf(principal);
    forgetCallerToken(principal);
    expect(holdsCallerToken(principal)).toBe(false);
    expect(() => runAsCaller(caller, () => requireIdentity().token)).toThrow(/request has ended/);
    expect(upstreamCallerOf(principal)).toEqual({
      identity: undefined,
      kind: 'oidc',
      principal: { workspace: 'team', id: principal.keyId },
    });
  });

  it('upstream-oauth:caller-token-only-for-exchange — a workspace with no token-exchange source never carries it; API keys never do', () => {
    const principal = sealCallerToken(principalIn(false), TOKEN);
    expect(holdsCallerToken(principal)).toBe(false);
    expect(Object.getOwnPropertySymbols(principal)).toEqual([]);
    expect(upstreamCallerOf(principal)).toEqual({
      identity: undefined,
      kind: 'oidc',
      principal: { workspace: 'team', id: principal.keyId },
    });
    const { oidc: _oidc, ...keyPrincipal } = principalIn(true);
    expect(holdsCallerToken(sealCallerToken(keyPrincipal, TOKEN))).toBe(false);
    expect(upstreamCallerOf(keyPrincipal)).toEqual({
      identity: undefined,
      kind: 'api-key',
      principal: { workspace: 'team', id: keyPrincipal.keyId },
    });
  });

  it('upstream-oauth:caller-token-grant-key — exchanges and connections are keyed by issuer, subject and scopes, never the token', () => {
    const read = { issuer: ISSUER, subject: 'alice', scopes: ['mcp:read'] };
    expect(subjectKey(read)).toBe(subjectKey({ ...read, scopes: ['mcp:read', 'mcp:read'] }));
    expect(subjectKey({ ...read, scopes: ['b', 'a'] })).toBe(subjectKey({ ...read, scopes: ['a', 'b'] }));
    expect(subjectKey(read)).not.toBe(subjectKey({ ...read, scopes: ['mcp:read', 'mcp:write'] }));
    expect(subjectKey(read)).not.toBe(subjectKey({ ...read, subject: 'bob' }));
    const identity = upstreamCallerOf(sealCallerToken(principalIn(true), TOKEN)).identity!;
    const other = upstreamCallerOf(sealCallerToken(principalIn(true), `${TOKEN}x`)).identity!;
    expect(subjectKey(identity)).toBe(subjectKey(other));
    expect(subjectKey(identity)).not.toContain('alice');
  });
});
