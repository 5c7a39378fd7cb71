// The pieces of a `WWW-Authenticate: Bearer` challenge (RFC 6750 §3) that carry values: scopes and
// quoted strings. Scopes can come from a token's own `scope` claim (signed by whoever holds the
// issuer's key) and strings from config, so neither is trusted to fit a header: only RFC 6749 §3.3
// scope tokens are named, and quoted values keep only RFC 6750's characters. Anything else once
// made setHeader throw ERR_INVALID_CHAR (a 500 with no request id) or turned `é` into mojibake.
import { SCOPE_TOKEN } from '../config/oauth-schema.js';

/** RFC 6750 §3: error_description and the like use %x20-21 / %x23-5B / %x5D-7E. */
const NOT_QUOTABLE = /[^\x20\x21\x23-\x5B\x5D-\x7E]/g;

/** `"value"` with every character outside RFC 6750's quoted-string set removed. */
export function quotedValue(value: string): string {
  return `"${value.replace(NOT_QUOTABLE, '')}"`;
}

/** The scope tokens of `scopes` that may be named, each once, in their first order. */
export function headerScopes(scopes: Iterable<string>): string[] {
  const kept = new Set<string>();
  for (const scope of scopes) if (SCOPE_TOKEN.test(scope)) kept.add(scope);
  return [...kept];
}

/** The `scope="…"` parameter, or undefined when no scope token is left to name. */
export function scopeParameter(scopes: Iterable<string>): string | undefined {
  const kept = headerScopes(scopes);
  return kept.length === 0 ? undefined : `scope=${quotedValue(kept.join(' '))}`;
}
