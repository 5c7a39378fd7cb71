// The OAuth half of the credential port (issue 29, D22): an access token that is not an API key is
// verified — a JWT against the keys of the issuer its `iss` names, as declared by the workspaces
// that trust that issuer; an opaque token by introspection at exactly one endpoint (an opaque token
// is never shown to two authorization servers) — and the verified identity is mapped to exactly one
// workspace. Verification state (keys, endpoints) is kept per trust group (reach scope + issuer
// declaration) across config reloads; each group fetches through its workspace's reach policy.
import type { GatewayConfig, SecretReader, WorkspaceConfig } from '../config/index.js';
import type { IssuerConfig } from '../config/oauth-schema.js';
import { insufficientScopeChallenge, resourceOf } from './bearer-challenge.js';
import { admit, principalForIdentity, subjectOf } from './identity-mapping.js';
import { IntrospectionCache, Introspector } from './introspection.js';
import { IntrospectionGate } from './introspection-gate.js';
import { fitsIntrospection } from './opaque-token-shape.js';
import { JwksCache } from './jwks-cache.js';
import { VerifiedTokenCache } from './verified-token-cache.js';
import { exchangesCallerToken } from './caller-token.js';
import { unverifiedIssuer, verifyJwt, type TokenFailure, type VerifyOutcome } from './jwt-verifier.js';
import {
  discoverIssuer,
  OAuthFetchError,
  type IssuerEndpoints,
  type OAuthFetchBounds,
} from './oauth-fetch.js';
import { OAUTH_DEFAULTS, oauthUrlProblem } from '../config/oauth-schema.js';
import type { Principal } from './principal.js';

/** The checked network path of a workspace: its reach scope's name and fetch. */
export interface ReachFetch {
  readonly key: string;
  readonly fetch: typeof fetch;
}

export interface OAuthAuthenticatorOptions {
  readonly secrets: SecretReader;
  readonly fetchFor: (workspace: WorkspaceConfig) => ReachFetch;
}

export type OAuthFailure = TokenFailure | 'no-workspace' | 'ambiguous';

export type OAuthOutcome =
  | { readonly ok: true; readonly principal: Principal }
  | { readonly ok: false; readonly reason: OAuthFailure; readonly workspaces?: readonly string[] };

interface VerifiedWithWorkspaces {
  readonly issuer: string;
  readonly claims: Readonly<Record<string, unknown>>;
  readonly workspaces: WorkspaceConfig[];
  /** What admission made of it, per face: it depends only on the claims and the config version,
   * which the cache entry is already bound to (issue 29 benchmark: rebuilding it per request was
   * most of the JWT path's extra cost at c=32). */
  admitted?: Partial<Record<'mcp' | 'rest', OAuthOutcome>>;
}

/** Workspaces that declare one issuer the same way, fetching through the same reach scope. */
interface TrustGroup {
  readonly key: string;
  readonly issuer: IssuerConfig;
  readonly reach: ReachFetch;
  readonly workspaces: WorkspaceConfig[];
}

interface TrustIndex {
  readonly byIssuer: ReadonlyMap<string, readonly TrustGroup[]>;
  readonly introspecting: readonly TrustGroup[];
}

interface GroupState {
  endpoints?: { readonly at: number; readonly value: Promise<IssuerEndpoints> } | undefined;
  jwks?: JwksCache;
  introspector?: Introspector;
}

export class OAuthAuthenticator {
  private readonly indexes = new WeakMap<GatewayConfig, TrustIndex>();
  private readonly verified = new WeakMap<TrustIndex, VerifiedTokenCache<VerifiedWithWorkspaces>>();
  private readonly states = new Map<string, GroupState>();
  private cache: IntrospectionCache | undefined;
  private refused: IntrospectionCache | undefined;
  private readonly gate = new IntrospectionGate();

  constructor(private readonly options: OAuthAuthenticatorOptions) {}

  async authenticate(
    token: string,
    config: GatewayConfig,
    now: Date,
    face: 'mcp' | 'rest',
  ): Promise<OAuthOutcome> {
    const oauth = config.oauth;
    const resource = resourceOf(config);
    if (oauth === undefined || resource === undefined) return { ok: false, reason: 'untrusted-issuer' };
    if (Buffer.byteLength(token, 'utf8') > oauth.maxTokenBytes) return { ok: false, reason: 'too-large' };
    const index = this.indexFor(config);
    // A JWT verified before under this config version is not parsed or verified again.
    const cacheKey = VerifiedTokenCache.keyOf(token);
    const known = this.verifiedOf(index).get(cacheKey, now.getTime());
    if (known !== undefined) return this.admittedOnce(known, config, face);
    const iss = unverifiedIssuer(token);
    let verified: VerifiedWithWorkspaces;
    if (iss === null) return { ok: false, reason: 'malformed' };
    if (iss === undefined) {
      const outcome = await this.introspect(token, index, config, resource, now);
      if (!outcome.ok) return outcome;
      verified = outcome.verified;
    } else {
      const groups = index.byIssuer.get(iss);
      if (groups === undefined) return { ok: false, reason: 'untrusted-issuer' };
      let failure: TokenFailure = 'bad-signature';
      let claims: Readonly<Record<string, unknown>> | undefined;
      const workspaces: WorkspaceConfig[] = [];
      for (const group of groups) {
        const outcome = await verifyJwt(
          token,
          group.issuer,
          resource,
          this.jwksOf(group, config).resolve,
          now,
        );
        if (outcome.ok) {
          claims ??= outcome.claims;
          workspaces.push(...group.workspaces);
        } else if (workspaces.length === 0) failure = outcome.reason;
      }
      if (claims === undefined) return { ok: false, reason: failure };
      verified = { issuer: iss, claims, workspaces };
      this.verifiedOf(index).set(cacheKey, verified, now.getTime());
      return this.admittedOnce(verified, config, face);
    }
    return this.admitted(verified, config, face);
  }

  /** Admission of a cached verified JWT, made once per face. A principal that will carry the
   * caller's token for token exchange (sealCallerToken) is copied, so no request's token lands on a
   * shared object. */
  private admittedOnce(
    verified: VerifiedWithWorkspaces,
    config: GatewayConfig,
    face: 'mcp' | 'rest',
  ): OAuthOutcome {
    const memo = (verified.admitted ??= {});
    const outcome = (memo[face] ??= this.admitted(verified, config, face));
    if (!outcome.ok || !exchangesCallerToken(outcome.principal.workspace)) return outcome;
    return { ok: true, principal: { ...outcome.principal } };
  }

  /** Maps a verified identity to exactly one workspace and builds its principal. */
  private admitted(
    verified: { issuer: string; claims: Readonly<Record<string, unknown>>; workspaces: WorkspaceConfig[] },
    config: GatewayConfig,
    face: 'mcp' | 'rest',
  ): OAuthOutcome {
    const subject = subjectOf(verified.claims);
    if (subject === undefined) return { ok: false, reason: 'missing-claims' };
    const admission = admit(verified.workspaces, verified.issuer, verified.claims);
    if (!admission.ok) return { ok: false, reason: admission.reason, workspaces: admission.workspaces };
    const principal = principalForIdentity(admission, verified.issuer, subject, verified.claims, (scopes) =>
      insufficientScopeChallenge(config, scopes, face),
    );
    return { ok: true, principal };
  }

  /** Verified JWTs of one config version (see verified-token-cache.ts). */
  private verifiedOf(index: TrustIndex): VerifiedTokenCache<VerifiedWithWorkspaces> {
    let cache = this.verified.get(index);
    if (cache === undefined) {
      cache = new VerifiedTokenCache<VerifiedWithWorkspaces>();
      this.verified.set(index, cache);
    }
    return cache;
  }

  /** JWKS fetches made so far for one issuer (every trust group of it), for tests and metrics. */
  jwksFetches(issuer: string): number {
    let total = 0;
    for (const [key, state] of this.states)
      if (key.includes(`\n${issuer}\n`)) total += state.jwks?.fetches ?? 0;
    return total;
  }

  /** Introspection calls made so far. */
  introspectionCalls(): number {
    let total = 0;
    for (const state of this.states.values()) total += state.introspector?.calls ?? 0;
    return total;
  }

  private async introspect(
    token: string,
    index: TrustIndex,
    config: GatewayConfig,
    resource: string,
    now: Date,
  ): Promise<
    | {
        ok: true;
        verified: {
          issuer: string;
          claims: Readonly<Record<string, unknown>>;
          workspaces: WorkspaceConfig[];
        };
      }
    | { ok: false; reason: TokenFailure }
  > {
    const prefixed = index.introspecting.filter((g) => {
      const prefix = g.issuer.introspection?.tokenPrefix;
      return prefix !== undefined && token.startsWith(prefix);
    });
    // Only to a declaration whose shape the token has (opaque-token-shape.ts, issue 37).
    const candidates = (
      prefixed.length > 0
        ? prefixed
        : index.introspecting.filter((g) => g.issuer.introspection?.tokenPrefix === undefined)
    ).filter((g) => g.issuer.introspection !== undefined && fitsIntrospection(token, g.issuer.introspection));
    const group = candidates[0];
    if (group === undefined) return { ok: false, reason: 'malformed' };
    if (candidates.length > 1) return { ok: false, reason: 'ambiguous-opaque' };
    const oauth = config.oauth;
    const ttlMs = oauth?.introspectionCacheTtlMs ?? OAUTH_DEFAULTS.introspectionCacheTtlMs;
    const outcome: VerifyOutcome = await this.introspectorOf(group, config).introspect(
      token,
      resource,
      now,
      ttlMs,
      {
        negativeTtlMs: oauth?.introspectionNegativeTtlMs ?? OAUTH_DEFAULTS.introspectionNegativeTtlMs,
        perSecond: oauth?.introspectionMaxPerSecond ?? OAUTH_DEFAULTS.introspectionMaxPerSecond,
        maxConcurrent: oauth?.introspectionMaxConcurrent ?? OAUTH_DEFAULTS.introspectionMaxConcurrent,
      },
    );
    if (!outcome.ok) return outcome;
    return {
      ok: true,
      verified: { issuer: group.issuer.issuer, claims: outcome.claims, workspaces: group.workspaces },
    };
  }

  private indexFor(config: GatewayConfig): TrustIndex {
    let index = this.indexes.get(config);
    if (index !== undefined) return index;
    const groups = new Map<string, TrustGroup>();
    for (const workspace of config.workspaces) {
      for (const issuer of workspace.identity?.issuers ?? []) {
        const reach = this.options.fetchFor(workspace);
        const key = `${reach.key}\n${issuer.issuer}\n${JSON.stringify(issuer)}`;
        const group = groups.get(key) ?? { key, issuer, reach, workspaces: [] };
        group.workspaces.push(workspace);
        groups.set(key, group);
      }
    }
    const byIssuer = new Map<string, TrustGroup[]>();
    for (const group of groups.values())
      byIssuer.set(group.issuer.issuer, [...(byIssuer.get(group.issuer.issuer) ?? []), group]);
    // Verification state of groups no longer configured goes; the rest carries over.
    for (const key of this.states.keys()) if (!groups.has(key)) this.states.delete(key);
    index = {
      byIssuer,
      introspecting: [...groups.values()].filter((g) => g.issuer.introspection !== undefined),
    };
    this.indexes.set(config, index);
    return index;
  }

  private stateOf(group: TrustGroup): GroupState {
    let state = this.states.get(group.key);
    if (state === undefined) {
      state = {};
      this.states.set(group.key, state);
    }
    return state;
  }

  private bounds(group: TrustGroup, config: GatewayConfig, maxBytes: number): OAuthFetchBounds {
    return { fetch: group.reach.fetch, timeoutMs: config.oauth?.fetchTimeoutMs ?? 5000, maxBytes };
  }

  /** The issuer's metadata, discovered once per key max age (a failure is forgotten at once). */
  private endpoints(group: TrustGroup, config: GatewayConfig): Promise<IssuerEndpoints> {
    const state = this.stateOf(group);
    const maxAge = config.oauth?.jwksMaxAgeMs ?? 600_000;
    const now = performance.now();
    if (state.endpoints === undefined || now - state.endpoints.at > maxAge) {
      const value = discoverIssuer(group.issuer.issuer, this.bounds(group, config, 65_536));
      value.catch(() => {
        if (state.endpoints?.value === value) state.endpoints = undefined;
      });
      state.endpoints = { at: now, value };
    }
    return state.endpoints.value;
  }

  private async endpoint(
    group: TrustGroup,
    config: GatewayConfig,
    configured: string | undefined,
    pick: (found: IssuerEndpoints) => string | undefined,
  ): Promise<string> {
    const url = configured ?? pick(await this.endpoints(group, config));
    if (url === undefined || oauthUrlProblem(url) !== undefined) throw new OAuthFetchError('bad-endpoint');
    return url;
  }

  private jwksOf(group: TrustGroup, config: GatewayConfig): JwksCache {
    const state = this.stateOf(group);
    const oauth = config.oauth;
    state.jwks ??= new JwksCache({
      uri: () => this.endpoint(group, config, group.issuer.jwksUri, (found) => found.jwksUri),
      bounds: this.bounds(group, config, oauth?.jwksMaxBytes ?? 262_144),
      maxKeys: oauth?.jwksMaxKeys ?? 50,
      cooldownMs: oauth?.jwksCooldownMs ?? 30_000,
      maxAgeMs: oauth?.jwksMaxAgeMs ?? 600_000,
    });
    return state.jwks;
  }

  private introspectorOf(group: TrustGroup, config: GatewayConfig): Introspector {
    const state = this.stateOf(group);
    const oauth = config.oauth;
    const entries = oauth?.introspectionCacheEntries ?? OAUTH_DEFAULTS.introspectionCacheEntries;
    this.cache ??= new IntrospectionCache(entries);
    this.refused ??= new IntrospectionCache(entries);
    state.introspector ??= new Introspector(group.key, {
      issuer: group.issuer,
      endpoint: () =>
        this.endpoint(
          group,
          config,
          group.issuer.introspection?.endpoint,
          (found) => found.introspectionEndpoint,
        ),
      bounds: this.bounds(group, config, 65_536),
      secrets: this.options.secrets,
      cache: this.cache,
      refused: this.refused,
      gate: this.gate,
    });
    return state.introspector;
  }
}
