// A real authorization server for the tests (issue 29): oidc-provider 9.13.3 (OpenID Certified),
// in-process on a loopback port, with resource indicators (RFC 8707: each token is for one
// resource, `aud` = that resource), authorization code + PKCE, client credentials, open dynamic
// client registration and introspection. Parameterised so later tests can add resources, clients,
// accounts and grant types (token exchange) without a second fixture. `headlessLogin` walks its dev
// login and consent forms the way docs/identity.md describes, so no browser is needed.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import { CookieJar } from './cookie-jar.js';

export interface ResourceServerInfo {
  /** The scopes this resource may be granted (space-separated). */
  readonly scope: string;
  /** Access token format; a function decides per client. Default jwt. */
  readonly format?: 'jwt' | 'opaque' | ((clientId: string) => 'jwt' | 'opaque');
  /** Access token lifetime; a function decides per client. Default 3600. */
  readonly ttlSeconds?: number | ((clientId: string) => number);
}

export type RefreshRotation = 'always' | 'never';

export interface AuthServerOptions {
  /** Resource indicators and what each may be granted; others get invalid_target. */
  readonly resources: Readonly<Record<string, ResourceServerInfo>>;
  /** Registered clients (oidc-provider client metadata). */
  readonly clients?: readonly Record<string, unknown>[];
  /** Claims added to every access token (and introspection answer) for this account or client. */
  readonly tokenClaims?: (accountId: string | undefined, clientId: string) => Record<string, unknown>;
  /** Scopes besides openid and offline_access that clients may register with. A quirk that matters
   * for step-up: a client's registered `scope` is a ceiling, and the SDK registers (DCR) with the
   * scope of the first challenge, so such a client cannot later ask for more. */
  readonly scopes?: readonly string[];
  /** What a dynamically registered client may ask for later, whatever `scope` it registered with.
   * RFC 7591 lets the server replace the requested scope; without this the registered scope is the
   * client's ceiling, and the SDK registers with the first challenge's scope. Registrations made
   * with a scope are widened to include these (how a deployment lets step-up work: see
   * docs/configuration.md). */
  readonly dynamicClientScope?: string;
  /** More oidc-provider features, merged over the defaults. */
  readonly features?: Readonly<Record<string, unknown>>;
  /** Answer CORS on the registration endpoint (/reg) for any origin, as an authorization server
   * must for a browser page (the console) to register itself; oidc-provider itself does not. */
  readonly registrationCors?: boolean;
  /** Runs on the provider before it serves (e.g. registerGrantType). */
  readonly configure?: (provider: Provider) => void;
  /** Clients that get a refresh token from every authorization code (a SaaS that always issues
   * one), not only when `offline_access` was granted (oidc-provider's rule, kept for the others).
   * The client must be allowed the refresh_token grant type; such a token outlives the session. */
  readonly issueRefreshToken?: (clientId: string) => boolean;
  /** Whether a refresh hands out a new refresh token and retires the used one ('always'; using a
   * retired one then fails and revokes the grant) or keeps it ('never'). Default: oidc-provider's
   * rule (public clients rotate; confidential ones once 70% of the token's lifetime has passed). A
   * function decides per client. */
  readonly rotateRefreshToken?: RefreshRotation | ((clientId: string) => RefreshRotation);
}

export interface AuthServer {
  readonly issuer: string;
  readonly provider: Provider;
  /** The signing key (private) and its public half, for tests that forge or inspect tokens. */
  readonly signingKey: JWK;
  readonly publicKey: JWK;
  /** The RSA key's public half (ID tokens; the key an HS256 forgery would misuse). */
  readonly rsaPublicKey: JWK;
  /** Requests served, by path (e.g. `/jwks`). */
  readonly requests: Map<string, number>;
  /** The `scope` each dynamic registration asked for (undefined: none), in order. */
  readonly registrationScopes: (string | undefined)[];
  /** Revokes every grant `accountId` gave (any client), with its refresh tokens and unused codes,
   * as a user removing an app at the SaaS would: the next refresh gets invalid_grant. JWT access
   * tokens already issued stay valid until they expire. Resolves to the number of grants revoked. */
  revokeGrants(accountId: string): Promise<number>;
  /** Grants the server revoked itself (e.g. a refresh token revoked at its RFC 7009 endpoint), by id. */
  readonly revokedGrants: string[];
  stop(): Promise<void>;
}

export async function startAuthServer(options: AuthServerOptions): Promise<AuthServer> {
  const requests = new Map<string, number>();
  // The provider needs its issuer (the port) before it exists; requests wait for it here.
  const route: { handler?: (request: IncomingMessage, response: ServerResponse) => void } = {};
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    requests.set(path, (requests.get(path) ?? 0) + 1);
    const origin = request.headers.origin;
    if (options.registrationCors === true && path === '/reg' && origin !== undefined) {
      response.setHeader('access-control-allow-origin', origin);
      response.setHeader('vary', 'Origin');
      if (request.method === 'OPTIONS') {
        response.writeHead(204, {
          'access-control-allow-methods': 'POST',
          'access-control-allow-headers': 'content-type',
        });
        response.end();
        return;
      }
    }
    route.handler?.(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const signingKey = { ...(await exportJWK(privateKey)), kid: 'fixture-es256', alg: 'ES256', use: 'sig' };
  const publicJwk = { ...(await exportJWK(publicKey)), kid: 'fixture-es256', alg: 'ES256', use: 'sig' };
  // An RSA key too: ID tokens default to RS256, and it is the key an HS256 forgery would misuse.
  const rsa = await generateKeyPair('RS256', { extractable: true });
  const rsaKey = { ...(await exportJWK(rsa.privateKey)), kid: 'fixture-rs256', alg: 'RS256', use: 'sig' };
  const rsaPublic = { ...(await exportJWK(rsa.publicKey)), kid: 'fixture-rs256', alg: 'RS256', use: 'sig' };

  const registrationScopes: (string | undefined)[] = [];
  const provider = new Provider(issuer, {
    // oidc-provider calls the validator for each declared extra property on every client it loads
    // or registers; it is where a deployment may rewrite a registration's metadata.
    extraClientMetadata: {
      properties: ['agw_registration'],
      validator: (ctx: unknown, key: string, _value: unknown, metadata: Record<string, unknown>) => {
        const route = (ctx as { oidc?: { route?: string } } | undefined)?.oidc?.route;
        if (key !== 'agw_registration' || route !== 'registration') return;
        const asked = typeof metadata['scope'] === 'string' ? metadata['scope'] : undefined;
        registrationScopes.push(asked);
        if (asked !== undefined && options.dynamicClientScope !== undefined)
          metadata['scope'] = [
            ...new Set([...asked.split(' '), ...options.dynamicClientScope.split(' ')]),
          ].join(' ');
      },
    },
    clients: options.clients ?? [],
    jwks: { keys: [signingKey, rsaKey] },
    scopes: ['openid', 'offline_access', ...(options.scopes ?? [])],
    cookies: { keys: ['agw-test-cookie-key'] },
    pkce: { required: () => true },
    findAccount: (_ctx: unknown, id: string) => ({ accountId: id, claims: () => ({ sub: id }) }),
    extraTokenClaims: (_ctx: unknown, token: { accountId?: string; clientId: string }) =>
      options.tokenClaims?.(token.accountId, token.clientId) ?? {},
    ...refreshTokenPolicy(options),
    features: {
      devInteractions: { enabled: true },
      registration: { enabled: true },
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: (_ctx: unknown, _client: unknown, oneOf?: string[]) => oneOf?.[0],
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, indicator: string, client: { clientId: string }) => {
          const info = options.resources[indicator];
          if (info === undefined) throw new Error(`unknown resource ${indicator}`);
          const format =
            typeof info.format === 'function' ? info.format(client.clientId) : (info.format ?? 'jwt');
          return {
            scope: info.scope,
            audience: indicator,
            accessTokenTTL:
              typeof info.ttlSeconds === 'function'
                ? info.ttlSeconds(client.clientId)
                : (info.ttlSeconds ?? 3600),
            accessTokenFormat: format,
            ...(format === 'jwt' ? { jwt: { sign: { alg: 'ES256' } } } : {}),
          };
        },
      },
      ...(options.features ?? {}),
    },
  });
  options.configure?.(provider);
  const grants = trackGrants(provider);
  const revokedGrants: string[] = [];
  provider.on('grant.revoked', (...args: unknown[]) => void revokedGrants.push(String(args[1])));
  route.handler = provider.callback();
  return {
    issuer,
    provider,
    signingKey,
    publicKey: publicJwk,
    rsaPublicKey: rsaPublic,
    requests,
    registrationScopes,
    revokeGrants: (accountId) => grants.revoke(accountId),
    revokedGrants,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface RefreshSource {
  readonly clientId: string;
  readonly scopes: Set<string>;
}
interface RefreshClient {
  readonly clientId: string;
  grantTypeAllowed(grantType: string): boolean;
}

/** The provider settings behind `issueRefreshToken` and `rotateRefreshToken` (none when unset, so
 * oidc-provider's defaults stay). */
function refreshTokenPolicy(options: AuthServerOptions): Record<string, unknown> {
  const always = options.issueRefreshToken;
  const rotation = options.rotateRefreshToken;
  return {
    ...(always === undefined
      ? {}
      : {
          issueRefreshToken: (_ctx: unknown, client: RefreshClient, source: RefreshSource) =>
            client.grantTypeAllowed('refresh_token') &&
            (source.scopes.has('offline_access') || always(client.clientId)),
          // Without offline_access oidc-provider would tie the refresh token to the login session.
          expiresWithSession: (_ctx: unknown, source: RefreshSource) =>
            !source.scopes.has('offline_access') && !always(source.clientId),
        }),
    ...(rotation === undefined
      ? {}
      : {
          rotateRefreshToken: (ctx: { oidc: { entities: { Client: RefreshClient } } }) =>
            (typeof rotation === 'function' ? rotation(ctx.oidc.entities.Client.clientId) : rotation) ===
            'always',
        }),
  };
}

interface GrantModel {
  readonly adapter: { destroy(id: string): Promise<void> };
}
interface TokenModel {
  revokeByGrantId(grantId: string): Promise<void>;
}

/** Remembers which grants each account gave (the memory adapter cannot list them) and revokes them
 * the way oidc-provider's own revocation does: tokens and codes by grant id, then the grant. */
function trackGrants(provider: Provider): { revoke(accountId: string): Promise<number> } {
  const byAccount = new Map<string, Set<string>>();
  provider.on('grant.saved', (grant) => {
    const { accountId, jti } = grant as { accountId?: string; jti: string };
    if (accountId === undefined) return;
    byAccount.set(accountId, (byAccount.get(accountId) ?? new Set()).add(jti));
  });
  const models = provider as unknown as Record<
    'AccessToken' | 'RefreshToken' | 'AuthorizationCode',
    TokenModel
  > & {
    Grant: GrantModel;
  };
  return {
    async revoke(accountId) {
      const ids = [...(byAccount.get(accountId) ?? [])];
      byAccount.delete(accountId);
      for (const id of ids) {
        await Promise.all(
          [models.AccessToken, models.RefreshToken, models.AuthorizationCode].map((model) =>
            model.revokeByGrantId(id),
          ),
        );
        await models.Grant.adapter.destroy(id);
      }
      return ids.length;
    },
  };
}

/** Walks an authorization request through oidc-provider's dev login (as `login`, any password) and
 * consent forms, keeping its cookies in `jar`, and returns the first redirect that `leaves` accepts,
 * without following it. Throws on an error page, an unexpected page or a redirect loop. */
export async function walkInteraction(
  authorizationUrl: URL | string,
  login: string,
  jar: CookieJar,
  leaves: (next: URL) => boolean,
): Promise<URL> {
  let url = new URL(authorizationUrl);
  let body: URLSearchParams | undefined;
  for (let hop = 0; hop < 20; hop += 1) {
    const cookie = jar.header(url);
    const response = await fetch(url, {
      method: body === undefined ? 'GET' : 'POST',
      redirect: 'manual',
      headers: {
        ...(cookie === '' ? {} : { cookie }),
        ...(body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
      },
      ...(body === undefined ? {} : { body }),
    });
    jar.take(url, response);
    const location = response.headers.get('location');
    if (location !== null) {
      const next = new URL(location, url);
      if (leaves(next)) return next;
      url = next;
      body = undefined;
      continue;
    }
    const html = await response.text();
    if (response.status !== 200)
      throw new Error(`authorization server answered ${response.status}: ${html.slice(0, 300)}`);
    const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1];
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (prompt === undefined || action === undefined)
      throw new Error(`unexpected page: ${html.slice(0, 300)}`);
    url = new URL(action.replace(/&amp;/g, '&'), url);
    body =
      prompt === 'login'
        ? new URLSearchParams({ prompt, login, password: 'any' })
        : new URLSearchParams({ prompt });
  }
  throw new Error('too many redirects in the login');
}

/** Walks the authorization request through the dev login (as `login`) and consent forms and
 * returns the redirect to the client's `redirectUri`, with `code`, `state` and `iss`. */
export async function headlessLogin(
  authorizationUrl: URL | string,
  login: string,
  redirectUri: string,
): Promise<URL> {
  return walkInteraction(authorizationUrl, login, new CookieJar(), (next) =>
    next.href.startsWith(redirectUri),
  );
}
