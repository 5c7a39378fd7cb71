// Who an upstream hop runs for (issue 29, D22): an OAuth caller's verified identity and the access
// token it presented, read only by RFC 8693 token exchange. The token stays in memory for the
// request's duration: never logged, cached or stored (only the exchanged token is cached, per
// subject). API-key callers, background syncs and discovery refreshes have no identity to exchange.
// The context rides the request's async context, set once by the MCP dispatcher, so the pool, the
// SDK transports' fetch and the relay find it without every call site passing it along.
import { AsyncLocalStorage } from 'node:async_hooks';
import { hash } from 'node:crypto';

export interface CallerIdentity {
  readonly issuer: string;
  readonly subject: string;
  /** The caller's own access token, verified by the auth hook; the subject_token of an exchange. */
  readonly token: string;
}

export interface UpstreamCaller {
  readonly identity: CallerIdentity | undefined;
  /** Why there is no identity, for the log (never a value). */
  readonly kind: 'api-key' | 'oidc';
}

/** What the principal offers (structural, so upstream/ does not depend on auth/). */
export interface PrincipalIdentity {
  readonly keyId: string;
  readonly oidc?: { readonly issuer: string; readonly subject: string } | undefined;
  /**
   * WIRING POINT (issue 29): the verified access token of an OAuth caller, set by the auth hook on
   * the request's principal and kept in memory only. Until the resource-server side sets it, an
   * OAuth caller of a token-exchange source fails like an API-key caller (upstream_identity_required).
   */
  readonly subjectToken?: string | undefined;
}

const callers = new AsyncLocalStorage<UpstreamCaller>();

export function upstreamCallerOf(principal: PrincipalIdentity): UpstreamCaller {
  const { oidc, subjectToken } = principal;
  if (oidc === undefined) return { identity: undefined, kind: 'api-key' };
  if (subjectToken === undefined || subjectToken === '') return { identity: undefined, kind: 'oidc' };
  return { identity: { issuer: oidc.issuer, subject: oidc.subject, token: subjectToken }, kind: 'oidc' };
}

/** Runs `task` (and everything it starts) on behalf of `caller`. */
export function runAsCaller<T>(caller: UpstreamCaller, task: () => T): T {
  return callers.run(caller, task);
}

export function currentCaller(): UpstreamCaller | undefined {
  return callers.getStore();
}

/** A stable key of one identity for caches and pooled connections: a digest, never a claim value. */
export function subjectKey(identity: { readonly issuer: string; readonly subject: string }): string {
  return hash('sha256', `agw-upstream-subject\0${identity.issuer}\0${identity.subject}`, 'base64url').slice(
    0,
    32,
  );
}

/** The subject key of the current caller, or undefined when it has no identity to exchange. */
export function currentSubject(): string | undefined {
  const identity = currentCaller()?.identity;
  return identity === undefined ? undefined : subjectKey(identity);
}

/** A token-exchange source was called without an OAuth caller whose token could be exchanged (an
 * API key, a background sync or refresh): refused, never answered with another credential. */
export class UpstreamIdentityRequiredError extends Error {
  constructor(readonly caller: 'api-key' | 'oidc' | 'none') {
    super(
      caller === 'api-key'
        ? 'the source exchanges the caller’s OAuth token; an API-key caller has none'
        : caller === 'oidc'
          ? 'the caller’s OAuth token is not available for exchange'
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
