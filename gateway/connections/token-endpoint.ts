// The OAuth token endpoint as the gateway's client (issue 29): a form POST (RFC 6749 §4.4 client
// credentials, RFC 8693 token exchange) with client_secret_basic (id and secret form-encoded before
// Base64, §2.3.1) or client_secret_post, the answer read up to 64 KiB and checked; the endpoint
// found from the issuer's metadata (RFC 8414, then OpenID discovery) when not configured. Every
// fetch goes through the workspace's network guard (D19), redirects are not followed (they would
// carry the client secret elsewhere), and no failure message carries a secret, a token or the
// server's free text: only the RFC 6749 `error` code.
import { issuedToken, DEFAULT_LIFETIME_MS, type IssuedToken } from './token-cache.js';
import { isRecord } from '../platform/is-record.js';

export type TokenFailure = 'unreachable' | 'timeout' | 'refused' | 'malformed';

/** Getting a token from the authorization server failed; `failure` says how. */
export class UpstreamTokenError extends Error {
  constructor(
    readonly failure: TokenFailure,
    detail: string,
    options?: { readonly cause?: unknown },
  ) {
    super(`upstream token request failed (${failure}): ${detail}`, options);
    this.name = 'UpstreamTokenError';
  }
}

export type ClientAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'none';

export interface ClientAuth {
  readonly method: ClientAuthMethod;
  readonly clientId: string;
  /** Unused by `none` (a public client, RFC 6749 §2.1, which PKCE protects). */
  readonly clientSecret: string;
}

export interface EndpointDeps {
  readonly fetch: typeof fetch;
  readonly timeoutMs: number;
  readonly now: () => number;
}

const MAX_ANSWER_BYTES = 64 * 1024;
const MAX_TOKEN_CHARS = 16 * 1024;
/** RFC 6749 §5.2 `error` values are %x20-21 / %x23-5B / %x5D-7E; anything else is not repeated. */
const ERROR_CODE = /^[\x20\x21\x23-\x5b\x5d-\x7e]{1,64}$/;

/** application/x-www-form-urlencoded, as RFC 6749 §2.3.1 asks for each half of Basic credentials. */
export function formEncode(value: string): string {
  return new URLSearchParams([['', value]]).toString().slice(1);
}

export function basicAuthorization(clientId: string, clientSecret: string): string {
  return `Basic ${Buffer.from(`${formEncode(clientId)}:${formEncode(clientSecret)}`).toString('base64')}`;
}

async function readCapped(response: Response): Promise<string> {
  if (response.body === null) return '';
  const chunks: Uint8Array[] = [];
  let total = 0;
  // Leaving the loop early (the throw) cancels the body.
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    total += chunk.byteLength;
    if (total > MAX_ANSWER_BYTES)
      throw new UpstreamTokenError('malformed', `the answer is larger than ${MAX_ANSWER_BYTES} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function failureOf(error: unknown): UpstreamTokenError {
  if (error instanceof UpstreamTokenError) return error;
  const name = (error as { name?: unknown } | null)?.name;
  if (name === 'TimeoutError' || name === 'AbortError')
    return new UpstreamTokenError('timeout', 'the authorization server did not answer in time', {
      cause: error,
    });
  return new UpstreamTokenError('unreachable', 'the authorization server could not be reached', {
    cause: error,
  });
}

/** GET or POST with the time-out, no redirects; the answer parsed as JSON (capped; undefined when
 * it is not JSON). */
async function exchange(
  url: string,
  init: RequestInit,
  deps: EndpointDeps,
): Promise<{ status: number; body: unknown }> {
  try {
    const response = await deps.fetch(url, {
      ...init,
      redirect: 'manual',
      signal: AbortSignal.timeout(deps.timeoutMs),
    });
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel().catch(() => undefined);
      throw new UpstreamTokenError(
        'refused',
        `the authorization server redirected (HTTP ${response.status})`,
      );
    }
    const text = await readCapped(response);
    let body: unknown;
    try {
      body = JSON.parse(text) as unknown;
    } catch {
      body = undefined;
    }
    return { status: response.status, body };
  } catch (error) {
    throw failureOf(error);
  }
}

/** The form body and headers of a request authenticated as `client` (RFC 6749 §2.3). */
function clientForm(
  form: Readonly<Record<string, string | readonly string[]>>,
  client: ClientAuth,
): { body: URLSearchParams; headers: Record<string, string> } {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(form))
    for (const one of typeof value === 'string' ? [value] : value) body.append(name, one);
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
  };
  if (client.method === 'client_secret_basic')
    headers['authorization'] = basicAuthorization(client.clientId, client.clientSecret);
  else {
    body.set('client_id', client.clientId);
    if (client.method === 'client_secret_post') body.set('client_secret', client.clientSecret);
  }
  return { body, headers };
}

/** RFC 7009 token revocation: true when the server answered 200 (it revokes, or did not know the
 * token); never throws for an answer, only for a server that cannot be reached. */
export async function revokeToken(
  endpoint: string,
  form: Readonly<Record<string, string>>,
  client: ClientAuth,
  deps: EndpointDeps,
): Promise<boolean> {
  const { body, headers } = clientForm(form, client);
  const answer = await exchange(endpoint, { method: 'POST', headers, body: body.toString() }, deps);
  return answer.status === 200;
}

/** Posts one token request and returns the access token with its lifetime. */
export async function requestToken(
  endpoint: string,
  form: Readonly<Record<string, string | readonly string[]>>,
  client: ClientAuth,
  deps: EndpointDeps,
): Promise<IssuedToken> {
  const { body, headers } = clientForm(form, client);
  const requestedAt = deps.now();
  const answer = await exchange(endpoint, { method: 'POST', headers, body: body.toString() }, deps);
  if (answer.status >= 500)
    throw new UpstreamTokenError('unreachable', `the authorization server answered HTTP ${answer.status}`);
  if (answer.status !== 200) {
    const code = isRecord(answer.body) ? answer.body['error'] : undefined;
    const named = typeof code === 'string' && ERROR_CODE.test(code) ? ` ${code}` : '';
    throw new UpstreamTokenError('refused', `HTTP ${answer.status}${named}`);
  }
  return tokenOf(answer.body, requestedAt);
}

function tokenOf(body: unknown, requestedAt: number): IssuedToken {
  if (!isRecord(body)) throw new UpstreamTokenError('malformed', 'the answer is not a JSON object');
  const value = body['access_token'];
  if (typeof value !== 'string' || value === '' || value.length > MAX_TOKEN_CHARS || /[\s,"\\]/.test(value))
    throw new UpstreamTokenError('malformed', 'the answer has no usable access_token');
  const type = body['token_type'];
  if (typeof type !== 'string' || type.toLowerCase() !== 'bearer')
    throw new UpstreamTokenError('malformed', 'the token_type is not Bearer');
  const expiresIn = body['expires_in'];
  const seconds =
    typeof expiresIn === 'number' ? expiresIn : typeof expiresIn === 'string' ? Number(expiresIn) : NaN;
  const lifetimeMs = Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : DEFAULT_LIFETIME_MS;
  const token = issuedToken(value, lifetimeMs, requestedAt);
  const refresh = body['refresh_token'];
  const scope = body['scope'];
  return {
    ...token,
    // A refresh token (authorization code and refresh grants, issue 42): the same bounds as the
    // access token; one that is not usable is left out rather than kept.
    ...(typeof refresh === 'string' &&
    refresh !== '' &&
    refresh.length <= MAX_TOKEN_CHARS &&
    !/[\s"\\]/.test(refresh)
      ? { refreshToken: refresh }
      : {}),
    ...(typeof scope === 'string' && scope.length <= 4096 ? { scope } : {}),
  };
}

/** RFC 8414 §3.1 (path inserted after the well-known prefix), then OpenID Connect Discovery 1.0. */
export function metadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  return [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}${path}/.well-known/openid-configuration`,
  ];
}

/** The issuer's metadata document, which must name the same issuer (RFC 8414 §3.3: the mix-up
 * defence). A document that is not there (any status but 200) sends us to the next well-known URL;
 * one that is there but wrong, or a server that cannot be reached, ends the search. */
export async function readServerMetadata(
  issuer: string,
  deps: EndpointDeps,
): Promise<Readonly<Record<string, unknown>>> {
  let status = 0;
  for (const url of metadataUrls(issuer)) {
    const answer = await getJson(url, deps);
    status = answer.status;
    if (answer.status !== 200) continue;
    if (!isRecord(answer.body) || answer.body['issuer'] !== issuer)
      throw new UpstreamTokenError('malformed', 'the metadata does not name the configured issuer');
    return answer.body;
  }
  throw new UpstreamTokenError(
    status >= 500 ? 'unreachable' : 'malformed',
    `no authorization server metadata (HTTP ${status})`,
  );
}

/** An http(s) URL field of a metadata document, or undefined. */
export function endpointField(metadata: Readonly<Record<string, unknown>>, name: string): string | undefined {
  const value = metadata[name];
  return typeof value === 'string' && /^https?:\/\//.test(value) ? value : undefined;
}

/** The issuer's token endpoint from its metadata. */
export async function discoverTokenEndpoint(issuer: string, deps: EndpointDeps): Promise<string> {
  const endpoint = endpointField(await readServerMetadata(issuer, deps), 'token_endpoint');
  if (endpoint === undefined)
    throw new UpstreamTokenError('malformed', 'the metadata has no usable token_endpoint');
  return endpoint;
}

/** A JSON GET (metadata documents), capped, with the time-out and no redirects. */
export function getJson(url: string, deps: EndpointDeps): Promise<{ status: number; body: unknown }> {
  return exchange(url, { method: 'GET', headers: { accept: 'application/json' } }, deps);
}

/** A JSON POST (dynamic client registration, RFC 7591), capped, with the time-out and no redirects. */
export function postJson(
  url: string,
  body: unknown,
  deps: EndpointDeps,
): Promise<{ status: number; body: unknown }> {
  return exchange(
    url,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
    },
    deps,
  );
}

/** Finds `UpstreamTokenError` in `error` or its `cause` chain (the SDK wraps what fetch threw). */
export function findTokenError(error: unknown): UpstreamTokenError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current !== null && current !== undefined; depth += 1) {
    if (current instanceof UpstreamTokenError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
