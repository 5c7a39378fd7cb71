// Upstream credentials are one port (D22, issue 29): a TokenSource gives the headers of one hop and
// hears when the upstream refused them. Static secrets are read at use time; OAuth client
// credentials and RFC 8693 token exchange draw on this replica's TokenCache (one token per
// credential, one per credential and subject for exchange) and fetch through the workspace's
// network guard, in a pool bounded for authorization servers (reach/authorization-server-pool.ts).
// A cached token is keyed by a digest of the client id and secret as they read at each hop, so a
// rotated secret is used at once. `authorizedFetch` and the modern relay retry a hop the upstream
// answered 401 once, with a fresh token; a second 401 is reported (upstream_unauthorized). Nothing
// here logs.
import { createHash } from 'node:crypto';
import {
  resolveSecret,
  type OAuthCredential,
  type SecretReader,
  type UpstreamCredential,
  type UserCredential,
} from '../config/index.js';
import { AuthorizationServerPool, type NetworkGuard } from '../reach/index.js';
import {
  capAt,
  discoverTokenEndpoint,
  requestToken,
  TokenCache,
  type EndpointDeps,
  type IssuedToken,
  ConsentRequiredError,
  type UserConnections,
  type UserSourceTarget,
} from '../connections/index.js';
import {
  currentCaller,
  currentPrincipal,
  requireIdentity,
  subjectKey,
  UpstreamIdentityRequiredError,
} from './upstream-caller.js';

export interface TokenSource {
  /** The credential headers of one hop (a cached token, or one fetched now). */
  headers(): Promise<Record<string, string>>;
  /** The upstream answered 401 to a hop that carried `headers`: forget that token. False when there
   * is nothing to refresh (a static secret), so the 401 is reported at once. */
  refused(headers: Record<string, string>): boolean;
}

export interface TokenTarget {
  readonly workspace: string;
  readonly source: string;
  /** The upstream's URL: the default RFC 8707 resource. */
  readonly url: string;
  /** Where token requests go under a tenant reach policy (D19); absent: unbounded. */
  readonly guard?: NetworkGuard | undefined;
  /** Time-out of one request to the authorization server (the source's connect time-out). */
  readonly timeoutMs?: number | undefined;
  /** Token exchange on a per-subject connection: the subject it was made for. Another caller's
   * token is never exchanged for it. */
  readonly subject?: string | undefined;
  /** A `user` source's per-principal connection: whose connection (issue 42). */
  readonly principal?: string | undefined;
}

export interface UpstreamTokensOptions {
  readonly secrets: SecretReader;
  readonly now?: () => number;
  /** Time-out of one request to an authorization server when the target names none. */
  readonly timeoutMs?: number;
  /** Cached client-credentials tokens, and exchanged tokens (per subject), per replica. */
  readonly maxTokens?: number;
  readonly maxSubjectTokens?: number;
  /** Connections to authorization servers of workspaces without a reach policy (one per process;
   * its own when not given). Guarded workspaces use their guard's pool with the same bounds. */
  readonly authorizationServers?: Pick<AuthorizationServerPool, 'fetchFor'>;
  /** Users' connections, for `user` sources (issue 42); without them such a source cannot be called. */
  readonly connections?: UserConnections | undefined;
}

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
const METADATA_TTL_MS = 3_600_000;

export function staticTokenSource(
  credential: Extract<UpstreamCredential, { type: 'bearer' | 'header' }> | undefined,
  secrets: SecretReader,
): TokenSource {
  return {
    // A promise even for a static secret: a missing secret is a rejection, not a throw mid-call.
    headers: () =>
      new Promise((resolve) => {
        if (credential === undefined) return resolve({});
        const value = resolveSecret(credential.secret, secrets);
        resolve(
          credential.type === 'bearer' ? { authorization: `Bearer ${value}` } : { [credential.name]: value },
        );
      }),
    refused: () => false,
  };
}

/** The SHA-256 of a credential's client id and secret as they read now (never the secret itself),
 * recomputed only when either changed. */
function credentialDigest(credential: OAuthCredential, secrets: SecretReader): () => string {
  let last: { id: string; secret: string; digest: string } | undefined;
  return () => {
    const id = resolveSecret(credential.clientId, secrets);
    const secret = resolveSecret(credential.clientSecret, secrets);
    if (last?.id !== id || last.secret !== secret)
      last = { id, secret, digest: createHash('sha256').update(`${id}\0${secret}`).digest('base64url') };
    return last.digest;
  };
}

function bearerOf(headers: Record<string, string>): string | undefined {
  const value = headers['authorization'];
  return value?.startsWith('Bearer ') === true ? value.slice('Bearer '.length) : undefined;
}

export class UpstreamTokens {
  private readonly tokens: TokenCache;
  private readonly exchanged: TokenCache;
  private readonly endpoints = new Map<string, { endpoint: Promise<string>; until: number }>();
  private readonly now: () => number;
  private readonly authorizationServers: Pick<AuthorizationServerPool, 'fetchFor'>;

  constructor(private readonly options: UpstreamTokensOptions) {
    this.now = options.now ?? Date.now;
    this.authorizationServers = options.authorizationServers ?? new AuthorizationServerPool();
    this.tokens = new TokenCache(options.maxTokens ?? 4096, this.now);
    this.exchanged = new TokenCache(options.maxSubjectTokens ?? 4096, this.now);
  }

  /** The token source of one source's credential (none: no headers). */
  forCredential(credential: UpstreamCredential | undefined, target: TokenTarget): TokenSource {
    if (credential === undefined || credential.type === 'bearer' || credential.type === 'header')
      return staticTokenSource(credential, this.options.secrets);
    if (credential.type === 'user') return this.userSource(credential, target);
    const reference = `${target.workspace}\0${target.source}\0${target.url}\0${JSON.stringify(credential)}`;
    // The key names the credential's current values by a digest: a rotated secret (a reloaded file,
    // a changed Kubernetes Secret) takes effect at the next hop, not when the cached token expires.
    const digest = credentialDigest(credential, this.options.secrets);
    const base = () => `${reference}\0${digest()}`;
    if (credential.type === 'oauthClientCredentials') {
      const issue = () => this.issue(credential, target, {});
      return this.cached(this.tokens, base, issue);
    }
    const bound = target.subject;
    const key = () => {
      const subject = this.subjectOf(bound);
      return `${base()}\0${subject}`;
    };
    const issue = async () => {
      const identity = requireIdentity();
      if (bound !== undefined && subjectKey(identity) !== bound)
        throw new UpstreamIdentityRequiredError('none');
      const expiresAtMs = identity.expiresAtMs;
      const token = await this.issue(credential, target, {
        grant_type: TOKEN_EXCHANGE,
        subject_token: identity.token,
        subject_token_type: ACCESS_TOKEN_TYPE,
        requested_token_type: ACCESS_TOKEN_TYPE,
        ...(credential.audience === undefined ? {} : { audience: credential.audience }),
      });
      // Not usable past the caller's token it was exchanged for: the next request, with a fresh
      // token for the same subject and scopes, gets a new exchange.
      return capAt(token, expiresAtMs);
    };
    return this.cached(this.exchanged, key, issue);
  }

  /** A `user` source: the principal's own grant from the connection store, refreshed there; no
   * connection (or no caller, as for a background refresh) is ConsentRequiredError. */
  private userSource(credential: UserCredential, target: TokenTarget): TokenSource {
    const connections = this.options.connections;
    const key = () => {
      const principal = target.principal ?? currentPrincipal(target.workspace);
      if (principal === undefined)
        throw new ConsentRequiredError(target.workspace, target.source, 'no-caller');
      return { workspace: target.workspace, principal, source: target.source };
    };
    const deps = this.endpointDeps(target.guard, target.timeoutMs);
    const userTarget: UserSourceTarget = {
      workspace: target.workspace,
      source: target.source,
      url: target.url,
      credential,
      deps,
      path: deps.scope,
    };
    return {
      headers: async () => {
        if (connections === undefined)
          throw new Error('a user credential needs the gateway’s userConnections store');
        return { authorization: `Bearer ${await connections.accessToken(key(), userTarget)}` };
      },
      refused: (headers) => {
        const token = bearerOf(headers);
        if (token === undefined || connections === undefined) return false;
        try {
          connections.refused(key(), token);
        } catch {
          return false;
        }
        return true;
      },
    };
  }

  /** The subject whose exchanged token a hop uses: the connection's own, else the current caller's. */
  private subjectOf(bound: string | undefined): string {
    if (bound !== undefined) return bound;
    const identity = currentCaller()?.identity;
    if (identity === undefined) throw new UpstreamIdentityRequiredError(currentCaller()?.kind ?? 'none');
    return subjectKey(identity);
  }

  private cached(cache: TokenCache, key: () => string, issue: () => Promise<IssuedToken>): TokenSource {
    return {
      headers: async () => ({ authorization: `Bearer ${await cache.get(key(), issue)}` }),
      refused: (headers) => {
        const token = bearerOf(headers);
        if (token === undefined) return false;
        try {
          cache.refused(key(), token);
        } catch {
          return false;
        }
        return true;
      },
    };
  }

  private async issue(
    credential: OAuthCredential,
    target: TokenTarget,
    grant: Record<string, string>,
  ): Promise<IssuedToken> {
    const deps = this.endpointDeps(target.guard, target.timeoutMs);
    const endpoint = credential.tokenEndpoint ?? (await this.endpointOf(credential.issuer as string, deps));
    const form: Record<string, string | readonly string[]> = {
      grant_type: 'client_credentials',
      ...grant,
      resource: credential.resource ?? target.url,
      ...(credential.scopes.length === 0 ? {} : { scope: credential.scopes.join(' ') }),
    };
    return requestToken(
      endpoint,
      form,
      {
        method: credential.authMethod,
        clientId: resolveSecret(credential.clientId, this.options.secrets),
        clientSecret: resolveSecret(credential.clientSecret, this.options.secrets),
      },
      deps,
    );
  }

  /** Issuer metadata is read once an hour per issuer and network path; a failed read is not kept. */
  private endpointOf(issuer: string, deps: EndpointDeps & { readonly scope: string }): Promise<string> {
    const key = `${deps.scope}\0${issuer}`;
    const known = this.endpoints.get(key);
    if (known !== undefined && this.now() < known.until) return known.endpoint;
    const endpoint = discoverTokenEndpoint(issuer, deps);
    const entry = { endpoint, until: this.now() + METADATA_TTL_MS };
    this.endpoints.set(key, entry);
    endpoint.catch(() => {
      if (this.endpoints.get(key) === entry) this.endpoints.delete(key);
    });
    return endpoint;
  }

  private endpointDeps(
    guard: NetworkGuard | undefined,
    timeoutMs: number | undefined,
  ): EndpointDeps & { readonly scope: string } {
    return {
      fetch: this.authorizationServers.fetchFor(guard),
      timeoutMs: timeoutMs ?? this.options.timeoutMs ?? 10_000,
      now: this.now,
      scope: guard === undefined ? '' : JSON.stringify(guard.scope),
    };
  }
}

function withCredentials(init: RequestInit | undefined, headers: Record<string, string>): RequestInit {
  const merged = new Headers(init?.headers);
  for (const [name, value] of Object.entries(headers)) merged.set(name, value);
  return { ...init, headers: merged };
}

/** fetch with the source's credential on every request; a 401 to a request whose body can be sent
 * again is retried once with a fresh token. */
export function authorizedFetch(inner: typeof fetch, tokens: TokenSource): typeof fetch {
  return async (input, init) => {
    const first = await tokens.headers();
    const response = await inner(input, withCredentials(init, first));
    const body = init?.body;
    const repeatable = body === undefined || body === null || typeof body === 'string';
    if (response.status !== 401 || !repeatable || !tokens.refused(first)) return response;
    await response.body?.cancel().catch(() => undefined);
    return inner(input, withCredentials(init, await tokens.headers()));
  };
}
