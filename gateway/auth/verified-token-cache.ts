// JWTs already verified (issue 29 benchmark: ES256 verification per request cost ~0.25 ms at p50 and a
// fifth of the throughput at c=32). A token seen again within its lifetime is not verified again:
// the cache is keyed by the SHA-256 of the whole token (never the token), holds what verification
// produced, and forgets an entry at the token's `exp` or after `maxAgeMs`, whichever comes first, so
// a key the issuer withdraws stops admitting its tokens within `maxAgeMs`. One cache per config
// version (the owner keys it by the trust index), so a reload that changes who trusts what starts
// empty. Bounded: past `maxEntries` the oldest entry goes.
import { createHash } from 'node:crypto';

export interface VerifiedJwt {
  readonly issuer: string;
  readonly claims: Readonly<Record<string, unknown>>;
}

interface Entry<T> {
  readonly value: T;
  readonly until: number;
}

export class VerifiedTokenCache<T extends VerifiedJwt = VerifiedJwt> {
  private readonly entries = new Map<string, Entry<T>>();

  constructor(
    private readonly maxAgeMs = 60_000,
    private readonly maxEntries = 10_000,
  ) {}

  static keyOf(token: string): string {
    return createHash('sha256').update(token).digest('base64url');
  }

  get(key: string, nowMs: number): T | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.until <= nowMs) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: T, nowMs: number): void {
    const exp = value.claims['exp'];
    const expiresMs = typeof exp === 'number' && Number.isFinite(exp) ? exp * 1000 : nowMs;
    const until = Math.min(expiresMs, nowMs + this.maxAgeMs);
    if (until <= nowMs) return;
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done !== true) this.entries.delete(oldest.value);
    }
    this.entries.set(key, { value, until });
  }

  get size(): number {
    return this.entries.size;
  }
}
