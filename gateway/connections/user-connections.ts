// Per-user upstream connections (issue 42): the consent flow that creates one and the access token
// every hop to a `user` source carries.
// - begin: an authenticated user (the principal comes from their key or token, never the request
//   body) starts the authorization-code flow with PKCE (S256) and `resource`; the OAuth `state` is
//   sealed and bound to workspace, principal, source, server and the browser (consent-seal.ts).
// - complete: the callback opens the state, checks the browser's cookie, the issuer (RFC 9207 `iss`
//   when the server sends it) and single use, redeems the code and stores the grant.
// - accessToken: the stored token, refreshed a little before expiry with one refresh in flight per
//   connection (per replica, and across replicas through the store's lock); a refused refresh
//   deletes the connection, so the next call asks the user to consent again.
// Reads go to the store each time, so a revocation on one replica holds on every replica at once.
// Nothing here logs, and no error carries a token or the server's free text.
import { createHash } from 'node:crypto';
import type { SecretReader } from '../config/index.js';
import {
  AuthorizationServers,
  type AuthorizationServer,
  type UserSourceTarget,
} from './authorization-server.js';
import { ClientRegistrations } from './client-registration.js';
import type { ConnectionKey, ConnectionSummary, RevokeFilter } from './connection-rows.js';
import type { ConnectionVault } from './connection-vault.js';
import { ConsentRequiredError } from './consent-required-error.js';
import type { ConsentSeal } from './consent-seal.js';
import { browserDigest, randomToken, type ConsentTarget } from './consent-seal.js';
import { requestToken, revokeToken, UpstreamTokenError, type ClientAuth } from './token-endpoint.js';
import type { UserGrant } from './user-grant.js';

/** How long a hop waits for another replica's refresh of the same connection. */
const REFRESH_WAIT_MS = 15_000;

/** Why a consent callback was refused (the page says which, in general terms). */
export type ConsentRefusal = 'state' | 'browser' | 'replayed' | 'issuer' | 'denied' | 'source' | 'exchange';

export class ConsentRefusedError extends Error {
  constructor(
    readonly reason: ConsentRefusal,
    options?: { readonly cause?: unknown },
  ) {
    super(`consent callback refused (${reason})`, options);
    this.name = 'ConsentRefusedError';
  }
}

export interface CallbackQuery {
  readonly code?: string | undefined;
  readonly state?: string | undefined;
  readonly iss?: string | undefined;
  readonly error?: string | undefined;
}

export interface UserConnectionsOptions {
  readonly vault: ConnectionVault;
  readonly seal: ConsentSeal;
  readonly secrets: SecretReader;
  /** The gateway's public base URL: the callback and the elicitation URLs are under it. Absent (a
   * cluster whose gateways have no publicUrl): nobody can be sent to consent (ConsentUnavailable). */
  readonly publicUrl: string | undefined;
  readonly now?: () => number;
}

function keyText(key: ConnectionKey): string {
  return `${key.workspace}\0${key.principal}\0${key.source}`;
}

function digest(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

function challengeOf(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

function isInvalidGrant(error: unknown): boolean {
  return (
    error instanceof UpstreamTokenError && error.failure === 'refused' && /HTTP 4\d\d/.test(error.message)
  );
}

/** A token request at the server for the source's resource (RFC 8707 on every grant); a public
 * client names itself in the form. */
function grantRequest(
  server: AuthorizationServer,
  client: ClientAuth,
  target: UserSourceTarget,
  form: Record<string, string>,
) {
  return requestToken(
    server.tokenEndpoint,
    {
      ...form,
      resource: target.credential.resource ?? target.url,
      ...(client.method === 'none' ? { client_id: client.clientId } : {}),
    },
    client,
    target.deps,
  );
}

export class UserConnections {
  readonly callbackUrl: string;
  private readonly base: string;
  private readonly servers: AuthorizationServers;
  private readonly clients: ClientRegistrations;
  private readonly refreshing = new Map<string, Promise<UserGrant>>();
  /** Access tokens an upstream answered 401 to (by connection): refreshed before the next use. */
  private readonly refusedTokens = new Map<string, string>();
  private readonly now: () => number;

  constructor(private readonly options: UserConnectionsOptions) {
    this.now = options.now ?? Date.now;
    this.base = (options.publicUrl ?? 'http://publicurl.invalid').replace(/\/+$/, '');
    this.callbackUrl = `${this.base}/oauth/upstream/callback`;
    this.servers = new AuthorizationServers(this.now);
    this.clients = new ClientRegistrations(options.vault, options.secrets);
  }

  /** Whether users can be sent to consent at all (the gateway knows its public URL). */
  get canConsent(): boolean {
    return this.options.publicUrl !== undefined;
  }

  /** The page a user opens to connect (the URL of an elicitation). */
  consentUrl(target: ConsentTarget): string {
    return `${this.base}/connect?ticket=${encodeURIComponent(this.options.seal.ticket(target))}`;
  }

  get seal(): ConsentSeal {
    return this.options.seal;
  }

  async connected(key: ConnectionKey): Promise<boolean> {
    return (await this.options.vault.grant(key)) !== undefined;
  }

  /** The access token for one hop of `key`'s principal to the source; ConsentRequiredError when
   * there is no usable connection. */
  async accessToken(key: ConnectionKey, target: UserSourceTarget): Promise<string> {
    const grant = await this.options.vault.grant(key);
    if (grant === undefined) throw new ConsentRequiredError(key.workspace, key.source, 'none');
    if (!this.needsRefresh(key, grant)) return grant.accessToken;
    return (await this.refresh(key, target, grant)).accessToken;
  }

  /** The upstream answered 401 to `token`: the next hop refreshes first. */
  refused(key: ConnectionKey, token: string): void {
    this.refusedTokens.set(keyText(key), digest(token));
    if (this.refusedTokens.size > 10_000)
      this.refusedTokens.delete(this.refusedTokens.keys().next().value as string);
  }

  list(workspace: string, principal: string): Promise<ConnectionSummary[]> {
    return this.options.vault.rows.list(workspace, principal);
  }

  revoke(filter: RevokeFilter): Promise<number> {
    return this.options.vault.rows.remove(filter);
  }

  /** A user ends their own connection: the row goes (every replica stops using it at once), then
   * the grant is revoked at the server that issued it (RFC 7009, the refresh token, which ends the
   * grant there), best effort: whether the server confirmed it. */
  async disconnect(
    key: ConnectionKey,
    target: UserSourceTarget | undefined,
  ): Promise<{ removed: number; atServer: boolean }> {
    const grant = await this.options.vault.grant(key);
    const removed = await this.options.vault.rows.remove(key);
    if (grant === undefined || target === undefined) return { removed, atServer: false };
    const atServer = await this.revokeAtServer(grant, target).catch(() => false);
    return { removed, atServer };
  }

  private async revokeAtServer(grant: UserGrant, target: UserSourceTarget): Promise<boolean> {
    const server = await this.servers.of(target);
    if (server.revocationEndpoint === undefined || server.issuer !== grant.issuer) return false;
    const client = await this.clients.clientFor(target, server, this.callbackUrl);
    const [token, hint] =
      grant.refreshToken === undefined
        ? [grant.accessToken, 'access_token']
        : [grant.refreshToken, 'refresh_token'];
    return revokeToken(
      server.revocationEndpoint,
      { token, token_type_hint: hint, ...(client.method === 'none' ? { client_id: client.clientId } : {}) },
      client,
      target.deps,
    );
  }

  /** Starts consent for the authenticated principal: the authorization URL to send the browser to,
   * and the browser's binding cookie value (set by the caller as an HttpOnly cookie). */
  async begin(key: ConnectionKey, target: UserSourceTarget): Promise<{ url: string; cookie: string }> {
    const server = await this.servers.of(target);
    const client = await this.clients.clientFor(target, server, this.callbackUrl);
    const verifier = randomToken(48);
    const cookie = randomToken(32);
    const state = this.options.seal.state(key, server.issuer, verifier, browserDigest(cookie));
    const url = new URL(server.authorizationEndpoint);
    const scopes = target.credential.scopes;
    const params: Record<string, string> = {
      response_type: 'code',
      client_id: client.clientId,
      redirect_uri: this.callbackUrl,
      state: this.options.seal.sealState(state),
      code_challenge: challengeOf(verifier),
      code_challenge_method: 'S256',
      resource: target.credential.resource ?? target.url,
      ...(scopes.length === 0 ? {} : { scope: scopes.join(' ') }),
    };
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    return { url: url.toString(), cookie };
  }

  /** The callback: checks everything the state binds, redeems the code and stores the grant.
   * `resolve` finds the source as configured now (it may have gone). */
  async complete(
    query: CallbackQuery,
    cookie: string | undefined,
    resolve: (target: ConsentTarget) => UserSourceTarget | undefined,
  ): Promise<ConsentTarget> {
    const state = query.state === undefined ? undefined : this.options.seal.openState(query.state);
    if (state === undefined) throw new ConsentRefusedError('state');
    if (cookie === undefined || browserDigest(cookie) !== state.browser)
      throw new ConsentRefusedError('browser');
    if (!(await this.options.vault.rows.consumeOnce(`consent\0${state.id}`, state.exp)))
      throw new ConsentRefusedError('replayed');
    const target = resolve(state);
    if (target === undefined) throw new ConsentRefusedError('source');
    const server = await this.servers.of(target);
    // The mix-up defence (RFC 9700 §4.4): the answer comes from the server the state was sent to.
    if (server.issuer !== state.issuer) throw new ConsentRefusedError('issuer');
    if (query.iss !== undefined ? query.iss !== state.issuer : server.sendsIssuer)
      throw new ConsentRefusedError('issuer');
    if (query.error !== undefined || query.code === undefined) throw new ConsentRefusedError('denied');
    const client = await this.clients.clientFor(target, server, this.callbackUrl);
    let issued;
    try {
      issued = await grantRequest(server, client, target, {
        grant_type: 'authorization_code',
        code: query.code,
        redirect_uri: this.callbackUrl,
        code_verifier: state.verifier,
      });
    } catch (error) {
      throw new ConsentRefusedError('exchange', { cause: error });
    }
    const key = { workspace: state.workspace, principal: state.principal, source: state.source };
    await this.options.vault.store(key, {
      accessToken: issued.value,
      refreshToken: issued.refreshToken,
      expiresAtMs: issued.expiresAtMs,
      refreshAtMs: issued.refreshAtMs,
      issuer: server.issuer,
      scope: issued.scope,
    });
    this.refusedTokens.delete(keyText(key));
    return key;
  }

  private needsRefresh(key: ConnectionKey, grant: UserGrant): boolean {
    return (
      this.now() >= grant.refreshAtMs || this.refusedTokens.get(keyText(key)) === digest(grant.accessToken)
    );
  }

  /** One refresh per connection in this replica; across replicas the store's lock, and whoever gets
   * it second finds the fresh grant and uses it. */
  private refresh(key: ConnectionKey, target: UserSourceTarget, seen: UserGrant): Promise<UserGrant> {
    const text = keyText(key);
    const pending = this.refreshing.get(text);
    if (pending !== undefined) return pending;
    const run = this.options.vault.rows
      .exclusive(key, REFRESH_WAIT_MS, async () => {
        const current = await this.options.vault.grant(key);
        if (current === undefined) throw new ConsentRequiredError(key.workspace, key.source, 'none');
        if (current.accessToken !== seen.accessToken && !this.needsRefresh(key, current)) return current;
        return this.redeemRefresh(key, target, current);
      })
      .finally(() => this.refreshing.delete(text));
    this.refreshing.set(text, run);
    return run;
  }

  private async redeemRefresh(
    key: ConnectionKey,
    target: UserSourceTarget,
    grant: UserGrant,
  ): Promise<UserGrant> {
    if (grant.refreshToken === undefined) {
      await this.options.vault.rows.remove(key);
      throw new ConsentRequiredError(key.workspace, key.source, 'expired');
    }
    const server = await this.servers.of(target);
    if (server.issuer !== grant.issuer) {
      // The source now points at another server: its grants are not sent there.
      await this.options.vault.rows.remove(key);
      throw new ConsentRequiredError(key.workspace, key.source, 'refused');
    }
    const client = await this.clients.clientFor(target, server, this.callbackUrl);
    const summary = (await this.options.vault.rows.get(key))?.summary;
    let issued;
    try {
      issued = await grantRequest(server, client, target, {
        grant_type: 'refresh_token',
        refresh_token: grant.refreshToken,
      });
    } catch (error) {
      if (!isInvalidGrant(error)) throw error;
      await this.options.vault.rows.remove(key);
      throw new ConsentRequiredError(key.workspace, key.source, 'refused');
    }
    const next: UserGrant = {
      accessToken: issued.value,
      // Rotation (RFC 9700 §4.14.2): a new refresh token replaces the old; none given keeps it.
      refreshToken: issued.refreshToken ?? grant.refreshToken,
      expiresAtMs: issued.expiresAtMs,
      refreshAtMs: issued.refreshAtMs,
      issuer: grant.issuer,
      scope: issued.scope ?? grant.scope,
    };
    await this.options.vault.store(key, next, summary?.connectedAtMs ?? this.now());
    this.refusedTokens.delete(keyText(key));
    return next;
  }
}
