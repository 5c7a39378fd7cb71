// Upstream access tokens held in this replica's memory (issue 29): each until shortly before it
// expires, one request in flight per key however many hops wait for it, bounded (least recently
// used goes first). A token the upstream refused is dropped only if it is still the cached one, so
// N hops refused together cause one refresh. Tokens never leave the process: not logged, not in
// Redis (docs/decisions.md: each replica fetches its own).

export interface IssuedToken {
  readonly value: string;
  /** When the authorization server says it expires (local clock, from the request's start). */
  readonly expiresAtMs: number;
  /** When to fetch the next one: a tenth of its lifetime before expiry, at most 30 s before. */
  readonly refreshAtMs: number;
  /** A refresh token, when the grant gave one (authorization code and refresh grants, issue 42). */
  readonly refreshToken?: string;
  /** The granted scopes, when the server said. */
  readonly scope?: string;
}

/** Without `expires_in` a token is kept this long (a 401 refreshes it sooner). */
export const DEFAULT_LIFETIME_MS = 60_000;
const MAX_MARGIN_MS = 30_000;

export function issuedToken(value: string, lifetimeMs: number, requestedAtMs: number): IssuedToken {
  const lifetime = Math.max(0, lifetimeMs);
  const margin = Math.min(MAX_MARGIN_MS, lifetime / 10);
  return { value, expiresAtMs: requestedAtMs + lifetime, refreshAtMs: requestedAtMs + lifetime - margin };
}

/** The token, usable no later than `untilMs` (an exchanged token ends with the caller's token it was
 * exchanged for, whatever the authorization server granted). */
export function capAt(token: IssuedToken, untilMs: number | undefined): IssuedToken {
  if (untilMs === undefined || untilMs >= token.expiresAtMs) return token;
  return {
    value: token.value,
    expiresAtMs: untilMs,
    refreshAtMs: Math.min(token.refreshAtMs, untilMs),
  };
}

export class TokenCache {
  private readonly entries = new Map<string, IssuedToken>();
  private readonly pending = new Map<string, Promise<IssuedToken>>();

  constructor(
    private readonly maxEntries: number,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** The cached token of `key`, or the one `issue` fetches (shared by every concurrent caller). While
   * a refresh fails, a token not yet expired is still handed out. */
  async get(key: string, issue: () => Promise<IssuedToken>): Promise<string> {
    const cached = this.entries.get(key);
    if (cached !== undefined && this.now() < cached.refreshAtMs) {
      this.entries.delete(key);
      this.entries.set(key, cached);
      return cached.value;
    }
    let flight = this.pending.get(key);
    if (flight === undefined) {
      flight = issue()
        .then((token) => {
          this.store(key, token);
          return token;
        })
        .finally(() => this.pending.delete(key));
      this.pending.set(key, flight);
    }
    try {
      return (await flight).value;
    } catch (error) {
      const still = this.entries.get(key);
      if (still !== undefined && this.now() < still.expiresAtMs) return still.value;
      throw error;
    }
  }

  /** The upstream refused `value`: forget it if it is still the cached token of `key`. */
  refused(key: string, value: string): void {
    if (this.entries.get(key)?.value === value) this.entries.delete(key);
  }

  private store(key: string, token: IssuedToken): void {
    this.entries.delete(key);
    this.entries.set(key, token);
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }
}
