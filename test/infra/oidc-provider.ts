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

export interface ResourceServerInfo {
  /** The scopes this resource may be granted (space-separated). */
  readonly scope: string;
  /** Access token format; a function decides per client. Default jwt. */
  readonly format?: 'jwt' | 'opaque' | ((clientId: string) => 'jwt' | 'opaque');
  /** Access token lifetime; a function decides per client. Default 3600. */
  readonly ttlSeconds?: number | ((clientId: string) => number);
}

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
  route.handler = provider.callback();
  return {
    issuer,
    provider,
    signingKey,
    publicKey: publicJwk,
    rsaPublicKey: rsaPublic,
    requests,
    registrationScopes,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A cookie jar good enough for oidc-provider's path-scoped interaction cookies. */
class CookieJar {
  private readonly cookies = new Map<string, string>();

  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair?.indexOf('=') ?? -1;
      if (pair === undefined || at < 0) continue;
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1);
      if (/expires=Thu, 01 Jan 1970/i.test(line) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

/** Walks the authorization request through the dev login (as `login`) and consent forms and
 * returns the redirect to the client's `redirectUri`, with `code`, `state` and `iss`. */
export async function headlessLogin(
  authorizationUrl: URL | string,
  login: string,
  redirectUri: string,
): Promise<URL> {
  const jar = new CookieJar();
  let url = new URL(authorizationUrl);
  let method = 'GET';
  let body: URLSearchParams | undefined;
  for (let hop = 0; hop < 20; hop += 1) {
    const response = await fetch(url, {
      method,
      redirect: 'manual',
      headers: {
        cookie: jar.header(),
        ...(body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
      },
      ...(body === undefined ? {} : { body }),
    });
    jar.take(response);
    const location = response.headers.get('location');
    if (location !== null) {
      const next = new URL(location, url);
      if (next.href.startsWith(redirectUri)) return next;
      url = next;
      method = 'GET';
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
    method = 'POST';
    body =
      prompt === 'login'
        ? new URLSearchParams({ prompt, login, password: 'any' })
        : new URLSearchParams({ prompt });
  }
  throw new Error('too many redirects in the login');
}
