// Which opaque (non-JWT) bearer tokens an issuer's introspection declaration may be asked about
// (issue 37): an RFC 6750 b64token, starting with the declared `tokenPrefix` when there is one, and
// of the declared `tokenLength` (default: at least OPAQUE_MIN_LENGTH characters). Anything else
// cannot be that issuer's token, so it costs no call: before this, every random string was sent.
import { OPAQUE_MIN_LENGTH, type IssuerConfig } from '../config/oauth-schema.js';

/** RFC 6750 §2.1: 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=". */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

type Introspection = NonNullable<IssuerConfig['introspection']>;

/** Whether `token` has the shape of a token this declaration's issuer could have issued. */
export function fitsIntrospection(token: string, introspection: Introspection): boolean {
  const min = introspection.tokenLength?.min ?? OPAQUE_MIN_LENGTH;
  const max = introspection.tokenLength?.max ?? Number.POSITIVE_INFINITY;
  if (token.length < min || token.length > max) return false;
  if (introspection.tokenPrefix !== undefined && !token.startsWith(introspection.tokenPrefix)) return false;
  return B64TOKEN.test(token);
}
