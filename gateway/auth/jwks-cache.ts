// One issuer's signing keys as this gateway knows them (issue 29): fetched when first needed, kept
// for `maxAgeMs`, refetched for a token whose `kid` is unknown at most once per `cooldownMs`, and
// never fetched twice at once — every request that needs a fetch waits for the one in flight, so a
// storm of tokens with random `kid`s costs the authorization server one request per cooldown.
// Bounded: answer size, key count, deadline; only asymmetric public signing keys are kept.
import type { CryptoKey, JSONWebKeySet, JWSHeaderParameters, JWK } from 'jose';
import { jose } from './jose-lazy.js';
import { fetchJsonObject, OAuthFetchError, type OAuthFetchBounds } from './oauth-fetch.js';

export interface JwksCacheOptions {
  /** Where the keys are: configured, or from the issuer's metadata. */
  readonly uri: () => Promise<string>;
  readonly bounds: OAuthFetchBounds;
  readonly maxKeys: number;
  readonly cooldownMs: number;
  readonly maxAgeMs: number;
  readonly now?: () => number;
}

const ASYMMETRIC = new Set(['RSA', 'EC', 'OKP']);
/** A key set that failed to load is retried no more often than this, even with no keys at all. */
const EMPTY_RETRY_MS = 1000;

export type KeyResolver = (header: JWSHeaderParameters) => Promise<CryptoKey>;

export class JwksUnavailableError extends Error {
  constructor(readonly failure: string) {
    super(`signing keys unavailable: ${failure}`);
    this.name = 'JwksUnavailableError';
  }
}

export class JwksCache {
  private keys: ((header: JWSHeaderParameters) => Promise<CryptoKey>) | undefined;
  private fetchedAt = Number.NEGATIVE_INFINITY;
  private attemptedAt = Number.NEGATIVE_INFINITY;
  private inflight: Promise<void> | undefined;
  private lastFailure = 'not-fetched';
  /** Fetches started (for metrics and tests). */
  fetches = 0;
  private readonly now: () => number;

  constructor(private readonly options: JwksCacheOptions) {
    this.now = options.now ?? (() => performance.now());
  }

  /** The key for this JWS header, refetching within the rules above. */
  readonly resolve: KeyResolver = async (header) => {
    const now = this.now();
    if (this.keys === undefined) {
      if (now - this.attemptedAt >= Math.min(EMPTY_RETRY_MS, this.options.cooldownMs) || this.inflight)
        await this.refresh().catch(() => undefined);
    } else if (now - this.fetchedAt > this.options.maxAgeMs) {
      // Stale keys still serve while one refresh runs; a failed refresh keeps them.
      if (this.inflight === undefined && now - this.attemptedAt >= this.options.cooldownMs)
        void this.refresh().catch(() => undefined);
    }
    const keys = this.keys;
    if (keys === undefined) throw new JwksUnavailableError(this.lastFailure);
    try {
      return await keys(header);
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'ERR_JWKS_NO_MATCHING_KEY') throw error;
    }
    // An unknown kid: the issuer may have rotated. Wait for a fetch in flight, or start one if the
    // cooldown allows; otherwise the token is refused.
    if (this.inflight !== undefined) await this.inflight.catch(() => undefined);
    else if (this.now() - this.attemptedAt >= this.options.cooldownMs)
      await this.refresh().catch(() => undefined);
    return (this.keys ?? keys)(header);
  };

  private refresh(): Promise<void> {
    this.inflight ??= this.load().finally(() => {
      this.inflight = undefined;
    });
    return this.inflight;
  }

  private async load(): Promise<void> {
    this.attemptedAt = this.now();
    this.fetches += 1;
    try {
      const document = await fetchJsonObject(await this.options.uri(), this.options.bounds);
      this.keys = jose().createLocalJWKSet(this.publicSigningKeys(document));
      this.fetchedAt = this.now();
    } catch (error) {
      this.lastFailure =
        error instanceof OAuthFetchError || error instanceof JwksUnavailableError
          ? error.failure
          : 'invalid-jwks';
      throw error;
    }
  }

  private publicSigningKeys(document: Record<string, unknown>): JSONWebKeySet {
    const listed = document['keys'];
    if (!Array.isArray(listed)) throw new JwksUnavailableError('invalid-jwks');
    if (listed.length > this.options.maxKeys) throw new JwksUnavailableError('too-many-keys');
    const keys = listed.filter(
      (key): key is JWK =>
        typeof key === 'object' &&
        key !== null &&
        ASYMMETRIC.has(String((key as JWK).kty)) &&
        (key as JWK).d === undefined &&
        ((key as JWK).use === undefined || (key as JWK).use === 'sig'),
    );
    return { keys };
  }
}
