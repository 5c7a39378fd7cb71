// The claims every access token must carry sanely before it becomes a principal (issue 37): time
// claims that are finite NumericDates near now, and a subject that is a non-empty string. Applied to
// verified JWTs and to active introspection answers alike, after the signature or the introspection
// call, so an authorization server's (or a forger with its key's) absurd values never reach a Date,
// a cache deadline or a key id.

/** The failures found here (a subset of jwt-verifier.ts's TokenFailure). */
export type ClaimProblem = 'bad-time-claim' | 'issued-in-future' | 'missing-claims';

/** How far from now `exp`, `iat` and `nbf` may lie. A year is an order of magnitude above the
 * longest access token a managed authorization server issues (Auth0 caps API tokens at 30 days;
 * Entra, Okta and Cognito at a day; Keycloak defaults to minutes) and far inside what a Date holds
 * (`exp` 1e20 made `new Date(exp * 1000)` throw RangeError in GET /agent/usage). */
export const MAX_TIME_CLAIM_DISTANCE_S = 366 * 86_400;

const TIME_CLAIMS = ['exp', 'iat', 'nbf'] as const;

/** Why these claims cannot make a principal, or undefined. Absent time claims are not checked here
 * (a JWT's `exp` is required by the verifier; RFC 7662 makes every one optional). */
export function claimProblem(
  claims: Readonly<Record<string, unknown>>,
  now: Date,
  skewSeconds: number,
): ClaimProblem | undefined {
  const seconds = now.getTime() / 1000;
  for (const name of TIME_CLAIMS) {
    const value = claims[name];
    if (value === undefined) continue;
    // JSON.parse reads 1e400 as Infinity; a string or null is no NumericDate either.
    if (typeof value !== 'number' || !Number.isFinite(value)) return 'bad-time-claim';
    if (Math.abs(value - seconds) > MAX_TIME_CLAIM_DISTANCE_S) return 'bad-time-claim';
  }
  const iat = claims['iat'];
  if (typeof iat === 'number' && iat > seconds + skewSeconds) return 'issued-in-future';
  return subjectProblem(claims);
}

/** The subject is `sub` when present (a non-empty string, RFC 7519 StringOrURI), else a machine
 * token's `client_id` (non-empty): an empty one would be one identity shared by every such token. */
function subjectProblem(claims: Readonly<Record<string, unknown>>): 'missing-claims' | undefined {
  const sub = claims['sub'];
  if (sub !== undefined) return typeof sub === 'string' && sub !== '' ? undefined : 'missing-claims';
  const clientId = claims['client_id'];
  return typeof clientId === 'string' && clientId !== '' ? undefined : 'missing-claims';
}
