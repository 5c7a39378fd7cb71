// Sign-in with the company's identity provider (docs/console.md "Signing in with OAuth"): the page
// reads the metadata of the protected resource it signs in to (RFC 9728, from
// <base>/sign-in-options.json, which answers `{}` without an `oauth` section; <base> is /console for
// the shared resource, /w/<workspace>/console for a workspace's own), then the authorization
// server's metadata, registers itself as a public client (RFC 7591) when the server allows it, and
// sends the browser there with PKCE (S256), `state` and `resource` = that resource's URI. The
// callback (<base>/callback) checks `state`, exchanges the code at the token endpoint and hands the
// access token to the caller, which keeps it exactly like an API key. The PKCE verifier and state
// live in this tab's sessionStorage for the round trip only, with the page's fragment (an elicitation
// link's `#connect=<ticket>`), which the callback puts back in the address.
import { CONSOLE_BASE } from './console-base.js';

const PENDING = 'agw-console:oauth-pending';
const CLIENTS = 'agw-console:oauth-clients';
/** The protected-resource metadata (RFC 9728), `{}` when the gateway has no `oauth` section. */
const METADATA_PATH = `${CONSOLE_BASE}/sign-in-options.json`;

export interface ResourceMetadata {
  readonly resource: string;
  readonly authorization_servers: readonly string[];
  readonly scopes_supported?: readonly string[];
}

interface ServerMetadata {
  readonly issuer: string;
  readonly authorization_endpoint: string;
  readonly token_endpoint: string;
  readonly registration_endpoint?: string;
  readonly code_challenge_methods_supported?: readonly string[];
}

interface Pending {
  readonly state: string;
  readonly verifier: string;
  readonly issuer: string;
  readonly clientId: string;
  readonly tokenEndpoint: string;
  readonly resource: string;
  /** The fragment to restore after the callback ('' or `#connect=<ticket>`). */
  readonly fragment?: string;
}

export const CALLBACK_PATH = `${CONSOLE_BASE}/callback`;

function redirectUri(): string {
  return `${location.origin}${CALLBACK_PATH}`;
}

function random(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return base64url(bytes);
}

function base64url(bytes: Uint8Array): string {
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

async function challengeOf(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return base64url(new Uint8Array(digest));
}

async function getJson(url: string): Promise<unknown> {
  const response = await fetch(url, {
    credentials: 'omit',
    referrerPolicy: 'no-referrer',
    cache: 'no-store',
  });
  if (!response.ok) throw new Error(`${new URL(url).origin} answered HTTP ${response.status}.`);
  return response.json();
}

/** The gateway's metadata, or undefined when it has no `oauth` section (API keys only). */
export async function resourceMetadata(): Promise<ResourceMetadata | undefined> {
  const response = await fetch(METADATA_PATH, { credentials: 'omit', cache: 'no-store' }).catch(
    () => undefined,
  );
  if (response === undefined || !response.ok) return undefined;
  const body = (await response.json().catch(() => undefined)) as Partial<ResourceMetadata> | undefined;
  if (typeof body?.resource !== 'string' || !Array.isArray(body.authorization_servers)) return undefined;
  return body as ResourceMetadata;
}

/** OpenID discovery first, then RFC 8414 (path inserted after the well-known prefix). */
async function serverMetadata(issuer: string): Promise<ServerMetadata> {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/+$/, '');
  const candidates = [
    `${url.origin}${path}/.well-known/openid-configuration`,
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
  ];
  for (const candidate of candidates) {
    const body = (await getJson(candidate).catch(() => undefined)) as Partial<ServerMetadata> | undefined;
    if (body === undefined) continue;
    if (body.issuer !== issuer) throw new Error(`The metadata of ${issuer} names another issuer.`);
    if (typeof body.authorization_endpoint !== 'string' || typeof body.token_endpoint !== 'string')
      throw new Error(`The metadata of ${issuer} has no authorization or token endpoint.`);
    const methods = body.code_challenge_methods_supported;
    if (methods !== undefined && !methods.includes('S256'))
      throw new Error(`${issuer} does not support PKCE with S256.`);
    return body as ServerMetadata;
  }
  throw new Error(`The metadata of ${issuer} could not be read.`);
}

/** A client id for this issuer and redirect URI: registered once per tab by DCR. */
async function clientIdFor(server: ServerMetadata, scope: string): Promise<string> {
  const known = JSON.parse(sessionStorage.getItem(CLIENTS) ?? '{}') as Record<string, string>;
  const slot = `${server.issuer} ${redirectUri()}`;
  const stored = known[slot];
  if (stored !== undefined) return stored;
  if (server.registration_endpoint === undefined)
    throw new Error(`${server.issuer} does not allow dynamic client registration.`);
  const response = await fetch(server.registration_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Agent Gateway console',
      redirect_uris: [redirectUri()],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'web',
      ...(scope === '' ? {} : { scope }),
    }),
    credentials: 'omit',
    referrerPolicy: 'no-referrer',
  });
  if (!response.ok) throw new Error(`${server.issuer} refused the registration (HTTP ${response.status}).`);
  const body = (await response.json()) as { client_id?: unknown };
  if (typeof body.client_id !== 'string') throw new Error(`${server.issuer} returned no client id.`);
  sessionStorage.setItem(CLIENTS, JSON.stringify({ ...known, [slot]: body.client_id }));
  return body.client_id;
}

/** Sends the browser to the authorization endpoint (a top-level navigation, not a fetch); `fragment`
 * comes back as the page's fragment after the callback. */
export async function startSignIn(metadata: ResourceMetadata, issuer: string, fragment = ''): Promise<void> {
  const server = await serverMetadata(issuer);
  const scope = (metadata.scopes_supported ?? []).join(' ');
  const clientId = await clientIdFor(server, scope);
  const pending: Pending = {
    state: random(),
    verifier: random(),
    issuer,
    clientId,
    tokenEndpoint: server.token_endpoint,
    resource: metadata.resource,
    fragment,
  };
  sessionStorage.setItem(PENDING, JSON.stringify(pending));
  const url = new URL(server.authorization_endpoint);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', clientId);
  url.searchParams.set('redirect_uri', redirectUri());
  url.searchParams.set('code_challenge', await challengeOf(pending.verifier));
  url.searchParams.set('code_challenge_method', 'S256');
  url.searchParams.set('state', pending.state);
  url.searchParams.set('resource', metadata.resource);
  if (scope !== '') url.searchParams.set('scope', scope);
  location.assign(url.href);
}

/** On /console/callback: checks `state`, exchanges the code and returns the access token. The
 * history entry is replaced first, so neither code nor state stays in any URL; the fragment the
 * sign-in started with is put back (even when the answer is refused: the user may sign in again). */
export async function finishSignIn(): Promise<string> {
  const params = new URLSearchParams(location.search);
  history.replaceState(null, '', `${CONSOLE_BASE}/`);
  const raw = sessionStorage.getItem(PENDING);
  sessionStorage.removeItem(PENDING);
  const pending = raw === null ? undefined : (JSON.parse(raw) as Pending);
  if (pending === undefined) throw new Error('No sign-in was started in this tab.');
  if (pending.fragment?.startsWith('#') === true)
    history.replaceState(null, '', `${CONSOLE_BASE}/${pending.fragment}`);
  const state = params.get('state');
  if (state === null || state !== pending.state)
    throw new Error('The sign-in answer did not match this tab (state).');
  const iss = params.get('iss');
  if (iss !== null && iss !== pending.issuer) throw new Error('The sign-in answer came from another issuer.');
  const error = params.get('error');
  if (error !== null) throw new Error(`The identity provider refused the sign-in (${error}).`);
  const code = params.get('code');
  if (code === null) throw new Error('The sign-in answer has no code.');
  const response = await fetch(pending.tokenEndpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri(),
      client_id: pending.clientId,
      code_verifier: pending.verifier,
      resource: pending.resource,
    }),
    credentials: 'omit',
    referrerPolicy: 'no-referrer',
    cache: 'no-store',
  });
  if (!response.ok) throw new Error(`The token endpoint refused the code (HTTP ${response.status}).`);
  const body = (await response.json()) as { access_token?: unknown };
  if (typeof body.access_token !== 'string') throw new Error('The token endpoint returned no access token.');
  return body.access_token;
}
