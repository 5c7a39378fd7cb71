// The OAuth half of the credential port (issue 29, D22; issue 37, D24): an access token that is not
// an API key is verified by exactly one workspace — the one the resource it was presented to names
// (protected-resource.ts: /w/<name>/mcp, the default workspace on the shared resource, the one
// workspace resource a token's `aud` names on REST routes) — with that workspace's declaration of
// the issuer its `iss` names (a JWT), or at its one introspection endpoint (an opaque token, never
// shown to two authorization servers), and admitted by that workspace's rules only. No other
// workspace's declaration, key server or rule is consulted. Verification state (keys, endpoints) is
// kept per trust group (reach scope + issuer declaration) across config reloads; each group fetches
// through its workspace's reach policy.
import type { GatewayConfig, SecretReader, WorkspaceConfig } from '../config/index.js';
import type { IssuerConfig } from '../config/oauth-schema.js';
import { insufficientScopeChallenge } from './bearer-challenge.js';
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
import { resourceOf, selectWorkspace, type ResourceTarget } from './protected-resource.js';

/** The checked network path of a workspace: its reach scope's name and fetch. */
export interface ReachFetch {
  readonly key: string;
  readonly fetch: typeof fetch;
}

export interface OAuthAuthenticatorOptions {
  readonly secrets: SecretReader;
  readonly fetchFor: (workspace: WorkspaceConfig) => ReachFetch;
}

export type OAuthFailure = TokenFailure | 'no-workspace';

export type OAuthOutcome =
  | { readonly ok: true; readonly principal: Principal }
  | { readonly ok: false; readonly reason: OAuthFailure };

/** A token verified for one workspace's resource. */
interface VerifiedForWorkspace {
  readonly issuer: string;
  readonly claims: Readonly<Record<string, unknown>>;
  readonly workspace: WorkspaceConfig;
  /** The resource its audience held: the workspace's own, or the shared one (default workspace). */
  readonly resource: string;
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
}

/** One workspace's declarations: its trust group per issuer, and those that introspect. */
interface WorkspaceTrust {
  readonly byIssuer: ReadonlyMap<string, TrustGroup>;
  readonly introspecting: readonly TrustGroup[];
}

type TrustIndex = ReadonlyMap<string, WorkspaceTrust>;

interface GroupState {
  endpoints?: { readonly at: number; readonly value: Promise<IssuerEndpoints> } | undefined;
  jwks?: JwksCache;
  introspector?: Introspector;
}

export class OAuthAuthenticator {
  private readonly indexes = new WeakMap<GatewayConfig, TrustIndex>();
  private readonly verified = new WeakMap<TrustIndex, VerifiedTokenCache<VerifiedForWorkspace>>();
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
    target: ResourceTarget,
  ): Promise<OAuthOutcome> {
    const oauth = config.oauth;
    if (oauth === undefined || resourceOf(config) === undefined)
      return { ok: false, reason: 'untrusted-issuer' };
    if (Buffer.byteLength(token, 'utf8') > oauth.maxTokenBytes) return { ok: false, reason: 'too-large' };
    const selected = selectWorkspace(token, config, target);
    if (!selected.ok) return selected;
    const { workspace, resource } = selected;
    const trust = this.indexFor(config).get(workspace.name);
    if (trust === undefined) return { ok: false, reason: 'untrusted-issuer' };
    // A JWT verified before for this workspace under this config version is not verified again.
    const cacheKey = `${workspace.name}\n${resource}\n${VerifiedTokenCache.keyOf(token)}`;
    const cache = this.verifiedOf(this.indexFor(config));
    const known = cache.get(cacheKey, now.getTime());
    if (known !== undefined) return this.admittedOnce(known, config, face);
    const iss = unverifiedIssuer(token);
    if (iss === null) return { ok: false, reason: 'malformed' };
    if (iss === undefined) {
      const outcome = await this.introspect(token, trust, config, resource, now);
      if (!outcome.ok) return outcome;
      return this.admitted({ ...outcome.verified, workspace, resource }, config, face);
    }
    const group = trust.byIssuer.get(iss);
    if (group === undefined) return { ok: false, reason: 'untrusted-issuer' };
    const outcome = await verifyJwt(token, group.issuer, resource, this.jwksOf(group, config).resolve, now);
    if (!outcome.ok) return outcome;
    const verified: VerifiedForWorkspace = { issuer: iss, claims: outcome.claims, workspace, resource };
    cache.set(cacheKey, verified, now.getTime());
    return this.admittedOnce(verified, config, face);
  }

  /** Admission of a cached verified JWT, made once per face. A principal that will carry the
   * caller's token for token exchange (sealCallerToken) is copied, so no request's token lands on a
   * shared object. */
  private admittedOnce(
    verified: VerifiedForWorkspace,
    config: GatewayConfig,
    face: 'mcp' | 'rest',
  ): OAuthOutcome {
    const memo = (verified.admitted ??= {});
    const outcome = (memo[face] ??= this.admitted(verified, config, face));
    if (!outcome.ok || !exchangesCallerToken(outcome.principal.workspace)) return outcome;
    return { ok: true, principal: { ...outcome.principal } };
  }

  /** Admits a verified identity by its workspace's rules and builds its principal. */
  private admitted(
    verified: Omit<VerifiedForWorkspace, 'admitted'>,
    config: GatewayConfig,
    face: 'mcp' | 'rest',
  ): OAuthOutcome {
    const subject = subjectOf(verified.claims);
    if (subject === undefined) return { ok: false, reason: 'missing-claims' };
    const admission = admit(verified.workspace, verified.issuer, verified.claims);
    if (!admission.ok) return { ok: false, reason: admission.reason };
    // A principal of a workspace resource steps up there; one of the shared resource, on it.
    const own = verified.resource === resourceOf(config) ? undefined : verified.resource;
    const principal = principalForIdentity(
      admission,
      verified.issuer,
      subject,
      verified.claims,
      (scopes) => insufficientScopeChallenge(config, scopes, face, own),
      verified.resource,
    );
    return { ok: true, principal };
  }

  /** Verified JWTs of one config version (see verified-token-cache.ts). */
  private verifiedOf(index: TrustIndex): VerifiedTokenCache<VerifiedForWorkspace> {
    let cache = this.verified.get(index);
    if (cache === undefined) {
      cache = new VerifiedTokenCache<VerifiedForWorkspace>();
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

  /** An opaque token at the workspace's one introspection endpoint: the one whose `tokenPrefix`
   * the token starts with, else the one without a prefix; two candidates are a refusal. */
  private async introspect(
    token: string,
    trust: WorkspaceTrust,
    config: GatewayConfig,
    resource: string,
    now: Date,
  ): Promise<
    | { ok: true; verified: { issuer: string; claims: Readonly<Record<string, unknown>> } }
    | { ok: false; reason: TokenFailure }
  > {
    const prefixed = trust.introspecting.filter((g) => {
      const prefix = g.issuer.introspection?.tokenPrefix;
      return prefix !== undefined && token.startsWith(prefix);
    });
    // Only to a declaration whose shape the token has (opaque-token-shape.ts, issue 37).
    const candidates = (
      prefixed.length > 0
        ? prefixed
        : trust.introspecting.filter((g) => g.issuer.introspection?.tokenPrefix === undefined)
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
    return { ok: true, verified: { issuer: group.issuer.issuer, claims: outcome.claims } };
  }

  private indexFor(config: GatewayConfig): TrustIndex {
    let index = this.indexes.get(config);
    if (index !== undefined) return index;
    const groups = new Map<string, TrustGroup>();
    const byWorkspace = new Map<string, WorkspaceTrust>();
    for (const workspace of config.workspaces) {
      if (workspace.identity === undefined) continue;
      const reach = this.options.fetchFor(workspace);
      const byIssuer = new Map<string, TrustGroup>();
      for (const issuer of workspace.identity.issuers) {
        // Workspaces declaring an issuer identically, through the same reach scope, share its keys.
        const key = `${reach.key}\n${issuer.issuer}\n${JSON.stringify(issuer)}`;
        const group = groups.get(key) ?? { key, issuer, reach };
        groups.set(key, group);
        byIssuer.set(issuer.issuer, group);
      }
      const introspecting = [...byIssuer.values()].filter((g) => g.issuer.introspection !== undefined);
      byWorkspace.set(workspace.name, { byIssuer, introspecting });
    }
    // Verification state of groups no longer configured goes; the rest carries over.
    for (const key of this.states.keys()) if (!groups.has(key)) this.states.delete(key);
    index = byWorkspace;
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
