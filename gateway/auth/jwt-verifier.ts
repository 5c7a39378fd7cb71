// JWT access tokens (issue 29, RFC 9068, RFC 8707): the header type and algorithm are checked
// against the issuer's allow-lists before any key is looked up, then the signature against the
// issuer's keys, `iss` exactly, `aud` containing our canonical resource URI, `exp`/`nbf` with the
// issuer's skew, then the sanity of time claims and subject (claim-checks.ts). Failures are reasons
// for the log, never for the caller.
import type { JWTPayload } from 'jose';
import { jose } from './jose-lazy.js';
import type { IssuerConfig } from '../config/oauth-schema.js';
import { JwksUnavailableError, type KeyResolver } from './jwks-cache.js';
import { claimProblem } from './claim-checks.js';

export type TokenFailure =
  | 'malformed'
  | 'too-large'
  | 'untrusted-issuer'
  | 'bad-type'
  | 'bad-algorithm'
  | 'no-key'
  | 'keys-unavailable'
  | 'bad-signature'
  | 'wrong-audience'
  | 'expired'
  | 'not-yet-valid'
  | 'missing-claims'
  | 'inactive'
  | 'introspection-failed'
  | 'introspection-busy'
  | 'ambiguous-opaque'
  | 'bad-time-claim'
  | 'issued-in-future';

export type VerifyOutcome =
  | { readonly ok: true; readonly claims: Readonly<Record<string, unknown>> }
  | { readonly ok: false; readonly reason: TokenFailure };

/** The `iss` of a JWT read without verification, to choose whose keys check it; undefined when the
 * text is not a JWT at all. */
export function unverifiedIssuer(token: string): string | undefined | null {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const payload = JSON.parse(Buffer.from(parts[1] as string, 'base64url').toString('utf8')) as unknown;
    const iss = (payload as { iss?: unknown } | null)?.iss;
    return typeof iss === 'string' ? iss : null;
  } catch {
    return null;
  }
}

function typeAllowed(issuer: IssuerConfig, header: string | undefined): boolean {
  const typ = header?.toLowerCase().replace(/^application\//, '');
  if (typ === 'at+jwt') return issuer.tokenTypes.includes('at+jwt');
  return (typ === undefined || typ === 'jwt') && issuer.tokenTypes.includes('jwt');
}

function failureOf(error: unknown): TokenFailure {
  if (error instanceof JwksUnavailableError) return 'keys-unavailable';
  const { errors } = jose();
  if (error instanceof errors.JWTExpired) return 'expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return 'wrong-audience';
    if (error.claim === 'nbf') return 'not-yet-valid';
    if (error.claim === 'iss') return 'untrusted-issuer';
    return 'missing-claims';
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return 'bad-algorithm';
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'bad-signature';
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys)
    return 'no-key';
  if (error instanceof errors.JOSEError) return 'malformed';
  // Anything else is ours or the key server's (an unreachable JWKS surfaces here too).
  return 'keys-unavailable';
}

export async function verifyJwt(
  token: string,
  issuer: IssuerConfig,
  resource: string,
  keys: KeyResolver,
  now: Date,
): Promise<VerifyOutcome> {
  let typ: string | undefined;
  let alg: string | undefined;
  try {
    ({ typ, alg } = jose().decodeProtectedHeader(token));
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  if (!typeAllowed(issuer, typ)) return { ok: false, reason: 'bad-type' };
  if (alg === undefined || !(issuer.algorithms as readonly string[]).includes(alg))
    return { ok: false, reason: 'bad-algorithm' };
  let payload: JWTPayload;
  try {
    ({ payload } = await jose().jwtVerify(token, keys, {
      issuer: issuer.issuer,
      audience: resource,
      algorithms: [...issuer.algorithms],
      clockTolerance: issuer.clockSkewSeconds,
      currentDate: now,
      requiredClaims: ['exp'],
    }));
  } catch (error) {
    return { ok: false, reason: failureOf(error) };
  }
  // Keycloak types its access tokens in the payload (typ Bearer); an ID token (typ ID) is not one.
  const payloadType = payload['typ'];
  if (
    typ?.toLowerCase() !== 'at+jwt' &&
    payloadType !== undefined &&
    (typeof payloadType !== 'string' || payloadType.toLowerCase() !== 'bearer')
  )
    return { ok: false, reason: 'bad-type' };
  const problem = claimProblem(payload, now, issuer.clockSkewSeconds);
  if (problem !== undefined) return { ok: false, reason: problem };
  return { ok: true, claims: payload };
}
