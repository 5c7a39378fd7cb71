// Opaque access tokens through RFC 7662 introspection (issue 29). The gateway authenticates to the
// issuer's introspection endpoint with its own client secret (a secret reference, read per call),
// and accepts an answer only when it is active, from that issuer, for our resource (RFC 8707) and
// in its validity window. Answers are cached briefly by a digest of the token (never the token),
// in a bounded map; concurrent requests with the same token share one call. How long is
// `oauth.introspectionCacheTtlMs`, read at each lookup: a reload that lowers it (0: ask every time)
// applies to answers already cached. Refusals (inactive, or active but not for us) are kept apart,
// for `introspectionNegativeTtlMs`, so a storm of unknown tokens can neither push an admitted
// caller's answer out nor cost a second call for a repeat; new calls per issuer are bounded by the
// gate (introspection-gate.ts, issue 37). docs/security.md.
import { createHash } from 'node:crypto';
import { resolveSecret, type SecretReader } from '../config/index.js';
import { OAUTH_DEFAULTS, type IssuerConfig } from '../config/oauth-schema.js';
import { fetchJsonObject, type OAuthFetchBounds } from './oauth-fetch.js';
import type { VerifyOutcome } from './jwt-verifier.js';
import { claimProblem } from './claim-checks.js';
import type { GateLimits, IntrospectionGate } from './introspection-gate.js';

export interface IntrospectionOptions {
  readonly issuer: IssuerConfig;
  /** The endpoint: configured, or from the issuer's metadata. */
  readonly endpoint: () => Promise<string>;
  readonly bounds: OAuthFetchBounds;
  readonly secrets: SecretReader;
  readonly cache: IntrospectionCache;
  /** Refused answers, apart from `cache` (same bound, its own lifetime). */
  readonly refused: IntrospectionCache;
  readonly gate: IntrospectionGate;
}

/** What bounds a lookup beyond the active-answer TTL; read from the config at each lookup. */
export interface IntrospectionLimits extends GateLimits {
  readonly negativeTtlMs: number;
}

const DEFAULT_LIMITS: IntrospectionLimits = {
  negativeTtlMs: OAUTH_DEFAULTS.introspectionNegativeTtlMs,
  perSecond: OAUTH_DEFAULTS.introspectionMaxPerSecond,
  maxConcurrent: OAUTH_DEFAULTS.introspectionMaxConcurrent,
};

interface CachedAnswer {
  readonly outcome: VerifyOutcome;
  /** When the answer was received. */
  readonly at: number;
  /** Never used past this (the token's `exp` for an active answer). */
  readonly until: number;
}

/** A bounded, least-recently-used map from token digest to answer, shared by every introspector. */
export class IntrospectionCache {
  private readonly entries = new Map<string, CachedAnswer>();
  readonly inflight = new Map<string, Promise<VerifyOutcome>>();

  constructor(private readonly maxEntries: number) {}

  /** The answer cached for `key` if it is younger than `ttlMs` and before its own end. */
  get(key: string, now: number, ttlMs: number): VerifyOutcome | undefined {
    const hit = this.entries.get(key);
    if (hit === undefined) return undefined;
    this.entries.delete(key);
    if (hit.until <= now || hit.at + ttlMs <= now) return undefined;
    this.entries.set(key, hit);
    return hit.outcome;
  }

  set(key: string, outcome: VerifyOutcome, at: number, until: number): void {
    if (this.maxEntries === 0) return;
    this.entries.delete(key);
    this.entries.set(key, { outcome, at, until });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done === true) break;
      this.entries.delete(oldest.value);
    }
  }
}

function audiences(value: unknown): readonly string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

export class Introspector {
  /** Calls made to the endpoint (for tests and metrics). */
  calls = 0;

  constructor(
    private readonly id: string,
    private readonly options: IntrospectionOptions,
  ) {}

  /** The answer for `token`: cached for up to `ttlMs` (the current `introspectionCacheTtlMs`), a
   * refusal for `limits.negativeTtlMs`; a new call only within the issuer's gate. */
  async introspect(
    token: string,
    resource: string,
    now: Date,
    ttlMs: number,
    limits: IntrospectionLimits = DEFAULT_LIMITS,
  ): Promise<VerifyOutcome> {
    // One fixed-size key per token, declaration and resource (the declaration's id can be long).
    // The resource is part of it: one introspector serves every workspace that declares its issuer
    // alike, and an answer judged for one workspace's audience says nothing for another's.
    const key = createHash('sha256').update(`${this.id}\n${resource}\n${token}`).digest('base64url');
    const { cache, refused, gate } = this.options;
    const cached =
      cache.get(key, now.getTime(), ttlMs) ?? refused.get(key, now.getTime(), limits.negativeTtlMs);
    if (cached !== undefined) return cached;
    let pending = cache.inflight.get(key);
    if (pending !== undefined) return pending;
    const release = gate.tryEnter(this.options.issuer.issuer, performance.now(), limits);
    if (release === undefined) return { ok: false, reason: 'introspection-busy' };
    pending = this.ask(token, resource, now, key).finally(() => {
      release();
      cache.inflight.delete(key);
    });
    cache.inflight.set(key, pending);
    return pending;
  }

  private async ask(token: string, resource: string, now: Date, key: string): Promise<VerifyOutcome> {
    const settings = this.options.issuer.introspection;
    if (settings === undefined) return { ok: false, reason: 'introspection-failed' };
    let answer: Record<string, unknown>;
    try {
      const secret = resolveSecret(settings.clientSecret, this.options.secrets);
      const body = new URLSearchParams({ token, token_type_hint: 'access_token' });
      const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
      if (settings.authMethod === 'client_secret_basic') {
        // RFC 6749 §2.3.1: each part form-encoded before Basic.
        const form = (value: string) => new URLSearchParams({ v: value }).toString().slice(2);
        headers['authorization'] =
          `Basic ${Buffer.from(`${form(settings.clientId)}:${form(secret)}`).toString('base64')}`;
      } else {
        body.set('client_id', settings.clientId);
        body.set('client_secret', secret);
      }
      this.calls += 1;
      answer = await fetchJsonObject(await this.options.endpoint(), this.options.bounds, { body, headers });
    } catch {
      // Not cached: the next request asks again.
      return { ok: false, reason: 'introspection-failed' };
    }
    const outcome = this.judge(answer, resource, now);
    if (!outcome.ok) {
      this.options.refused.set(key, outcome, now.getTime(), Number.POSITIVE_INFINITY);
      return outcome;
    }
    // The judge has checked `exp` is a sane NumericDate when present (claim-checks.ts).
    const exp = typeof answer['exp'] === 'number' ? answer['exp'] * 1000 : Number.POSITIVE_INFINITY;
    this.options.cache.set(key, outcome, now.getTime(), exp);
    return outcome;
  }

  private judge(answer: Record<string, unknown>, resource: string, now: Date): VerifyOutcome {
    if (answer['active'] !== true) return { ok: false, reason: 'inactive' };
    const issuer = this.options.issuer;
    if (answer['iss'] !== undefined && answer['iss'] !== issuer.issuer)
      return { ok: false, reason: 'untrusted-issuer' };
    if (!audiences(answer['aud']).includes(resource)) return { ok: false, reason: 'wrong-audience' };
    const seconds = now.getTime() / 1000;
    const skew = issuer.clockSkewSeconds;
    if (typeof answer['exp'] === 'number' && answer['exp'] <= seconds - skew)
      return { ok: false, reason: 'expired' };
    if (typeof answer['nbf'] === 'number' && answer['nbf'] > seconds + skew)
      return { ok: false, reason: 'not-yet-valid' };
    const problem = claimProblem(answer, now, skew);
    if (problem !== undefined) return { ok: false, reason: problem };
    return { ok: true, claims: { ...answer, iss: issuer.issuer } };
  }
}
