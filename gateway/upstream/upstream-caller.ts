// Who an upstream hop runs for (issue 29, D22): an OAuth caller's verified identity and the access
// token it presented, read only by RFC 8693 token exchange. The auth hook seals the token onto the
// principal (auth/caller-token.ts: a non-enumerable symbol-keyed holder that forgets it when the
// response closes); here it is read through that holder on demand, never copied into a plain field,
// so logging or serialising a caller shows no token. API-key callers, background syncs and discovery
// refreshes have no identity to exchange. The context rides the request's async context, set once
// by the MCP dispatcher, so the pool, the SDK transports' fetch and the relay find it without every
// call site passing it along. Exchanged tokens and per-subject connections are keyed by issuer,
// subject and granted scopes (subjectKey), never by the token.
import { AsyncLocalStorage } from 'node:async_hooks';
import { hash } from 'node:crypto';

export interface CallerIdentity {
  readonly issuer: string;
  readonly subject: string;
  /** The scopes the caller's token grants: an exchange made for one grant is not reused for another. */
  readonly scopes?: readonly string[] | undefined;
  /** The caller's token's `exp` in epoch ms: an exchanged token is not used past it. */
  readonly expiresAtMs?: number | undefined;
  /** The caller's own access token, verified by the auth hook; the subject_token of an exchange.
   * On identities made by upstreamCallerOf a non-enumerable getter that throws once the request has
   * ended (the token is forgotten then). */
  readonly token: string;
}

export interface UpstreamCaller {
  readonly identity: CallerIdentity | undefined;
  /** Whose connection a `user` source's hop uses (issue 42): the principal's key id (an API key's
   * id, or `oidc:<digest>`), in its workspace. */
  readonly principal?: { readonly workspace: string; readonly id: string } | undefined;
  /** Why there is no identity, for the log (never a value). */
  readonly kind: 'api-key' | 'oidc';
}

/** The registered symbol auth/caller-token.ts seals the caller's token under (read structurally, so
 * upstream/ does not depend on auth/; a unit test pins the two together). */
const CALLER_TOKEN = Symbol.for('agent-gateway.caller-token');

/** What the principal offers (structural, so upstream/ does not depend on auth/). */
export interface PrincipalIdentity {
  readonly keyId: string;
  readonly workspace: { readonly name: string };
  readonly oidc?:
    | {
        readonly issuer: string;
        readonly subject: string;
        readonly scopes?: readonly string[];
        readonly expiresAtMs?: number;
      }
    | undefined;
}

interface SealedToken {
  reveal(): string | undefined;
}

function sealedTokenOf(principal: PrincipalIdentity): SealedToken | undefined {
  const holder: unknown = Reflect.get(principal, CALLER_TOKEN);
  if (typeof holder !== 'object' || holder === null) return undefined;
  const reveal: unknown = Reflect.get(holder, 'reveal');
  return typeof reveal === 'function' ? (holder as SealedToken) : undefined;
}

const callers = new AsyncLocalStorage<UpstreamCaller>();

export function upstreamCallerOf(principal: PrincipalIdentity): UpstreamCaller {
  const { oidc } = principal;
  const who = { principal: { workspace: principal.workspace.name, id: principal.keyId } };
  if (oidc === undefined) return { identity: undefined, kind: 'api-key', ...who };
  const sealed = sealedTokenOf(principal);
  const present = sealed?.reveal();
  if (sealed === undefined || present === undefined || present === '')
    return { identity: undefined, kind: 'oidc', ...who };
  const identity = {
    issuer: oidc.issuer,
    subject: oidc.subject,
    ...(oidc.scopes === undefined ? {} : { scopes: oidc.scopes }),
    ...(oidc.expiresAtMs === undefined ? {} : { expiresAtMs: oidc.expiresAtMs }),
  };
  // Read through the holder at exchange time: nothing here keeps a copy of the value.
  Object.defineProperty(identity, 'token', {
    enumerable: false,
    get: () => {
      const token = sealed.reveal();
      if (token === undefined) throw new UpstreamIdentityRequiredError('ended');
      return token;
    },
  });
  return { identity: identity as CallerIdentity, kind: 'oidc', ...who };
}

/** Runs `task` (and everything it starts) on behalf of `caller`. */
export function runAsCaller<T>(caller: UpstreamCaller, task: () => T): T {
  return callers.run(caller, task);
}

export function currentCaller(): UpstreamCaller | undefined {
  return callers.getStore();
}

/** A stable key of one identity and grant for caches and pooled connections: a digest of issuer,
 * subject and the sorted scopes, never a claim value and never the token. A token with other scopes
 * (narrower, or stepped up) gets its own exchange and connection; a new token with the same scopes
 * for the same subject reuses them (docs/security.md). */
export function subjectKey(identity: {
  readonly issuer: string;
  readonly subject: string;
  readonly scopes?: readonly string[] | undefined;
}): string {
  const grant = identity.scopes === undefined ? '' : [...new Set(identity.scopes)].sort().join(' ');
  return hash(
    'sha256',
    `agw-upstream-subject\0${identity.issuer}\0${identity.subject}\0${grant}`,
    'base64url',
  ).slice(0, 32);
}

/** The principal whose connection the current hop uses (issue 42): in the caller's workspace only. */
export function currentPrincipal(workspace: string): string | undefined {
  const principal = currentCaller()?.principal;
  return principal?.workspace === workspace ? principal.id : undefined;
}

/** The subject key of the current caller, or undefined when it has no identity to exchange. */
export function currentSubject(): string | undefined {
  const identity = currentCaller()?.identity;
  return identity === undefined ? undefined : subjectKey(identity);
}

/** A token-exchange source was called without an OAuth caller whose token could be exchanged (an
 * API key, a background sync or refresh): refused, never answered with another credential. */
export class UpstreamIdentityRequiredError extends Error {
  constructor(readonly caller: 'api-key' | 'oidc' | 'none' | 'ended') {
    super(
      caller === 'api-key'
        ? 'the source exchanges the caller’s OAuth token; an API-key caller has none'
        : caller === 'oidc'
          ? 'the caller’s OAuth token is not available for exchange'
          : caller === 'ended'
            ? 'the caller’s request has ended; its OAuth token is no longer available for exchange'
            : 'the source exchanges the caller’s OAuth token; this hop has no caller',
    );
    this.name = 'UpstreamIdentityRequiredError';
  }
}

/** Throws unless the current caller has an identity to exchange. */
export function requireIdentity(): CallerIdentity {
  const caller = currentCaller();
  if (caller?.identity === undefined) throw new UpstreamIdentityRequiredError(caller?.kind ?? 'none');
  return caller.identity;
}
