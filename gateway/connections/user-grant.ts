// A user's grant at an upstream's authorization server (issue 42): the tokens the gateway holds for
// one (workspace, principal, source), sealed by the vault before any store sees them. Read back
// strictly: a row that does not parse is treated as no connection (the user consents again), never
// half-used.

export interface UserGrant {
  readonly accessToken: string;
  readonly refreshToken?: string | undefined;
  /** When the access token expires (local clock). */
  readonly expiresAtMs: number;
  /** When to refresh it, a little before expiry. */
  readonly refreshAtMs: number;
  /** The authorization server that issued it (refreshes go only there). */
  readonly issuer: string;
  readonly scope?: string | undefined;
}

export function grantText(grant: UserGrant): string {
  return JSON.stringify({
    a: grant.accessToken,
    r: grant.refreshToken,
    e: grant.expiresAtMs,
    f: grant.refreshAtMs,
    i: grant.issuer,
    s: grant.scope,
  });
}

export function grantOf(text: string): UserGrant | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { a, r, e, f, i, s } = value as Record<string, unknown>;
  if (typeof a !== 'string' || typeof e !== 'number' || typeof f !== 'number' || typeof i !== 'string')
    return undefined;
  return {
    accessToken: a,
    ...(typeof r === 'string' ? { refreshToken: r } : {}),
    expiresAtMs: e,
    refreshAtMs: f,
    issuer: i,
    ...(typeof s === 'string' ? { scope: s } : {}),
  };
}
