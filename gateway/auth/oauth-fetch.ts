// The resource server's calls to an authorization server (issue 29): its metadata, its JWKS and its
// introspection endpoint. Each call has a deadline, a byte bound on the answer and no redirects, and
// goes through the fetch it is given, which is the workspace's NetworkGuard.fetch() when the tenant
// reach policy bounds that workspace (D19: decided again here, on the resolved address).
import { findReachDenied } from '../reach/index.js';
import { readLimited } from '../platform/read-limited.js';

/** Why a call to an authorization server failed; logged, never shown to the caller. */
export type OAuthFetchFailure =
  | 'timeout'
  | 'not-allowed'
  | 'unreachable'
  | 'status'
  | 'too-large'
  | 'not-json'
  | 'issuer-mismatch'
  | 'bad-endpoint';

export class OAuthFetchError extends Error {
  constructor(readonly failure: OAuthFetchFailure) {
    super(`authorization server call failed: ${failure}`);
    this.name = 'OAuthFetchError';
  }
}

export interface OAuthFetchBounds {
  readonly fetch: typeof fetch;
  readonly timeoutMs: number;
  readonly maxBytes: number;
}

/** GETs (or POSTs a form to) `url` and parses a JSON object from at most `maxBytes` of answer. */
export async function fetchJsonObject(
  url: string,
  bounds: OAuthFetchBounds,
  post?: { readonly body: URLSearchParams; readonly headers: Readonly<Record<string, string>> },
): Promise<Record<string, unknown>> {
  let response: Response;
  try {
    response = await bounds.fetch(url, {
      method: post === undefined ? 'GET' : 'POST',
      headers: { accept: 'application/json', ...(post?.headers ?? {}) },
      ...(post === undefined ? {} : { body: post.body }),
      redirect: 'error',
      signal: AbortSignal.timeout(bounds.timeoutMs),
    });
  } catch (error) {
    if (findReachDenied(error) !== undefined) throw new OAuthFetchError('not-allowed');
    const name = (error as { name?: unknown } | undefined)?.name;
    throw new OAuthFetchError(name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : 'unreachable');
  }
  if (response.status !== 200) {
    await response.body?.cancel().catch(() => undefined);
    throw new OAuthFetchError('status');
  }
  let text: string | undefined;
  try {
    text = await readLimited(response, bounds.maxBytes);
  } catch (error) {
    const name = (error as { name?: unknown } | undefined)?.name;
    throw new OAuthFetchError(name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : 'unreachable');
  }
  if (text === undefined) throw new OAuthFetchError('too-large');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new OAuthFetchError('not-json');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new OAuthFetchError('not-json');
  return value as Record<string, unknown>;
}

/** The endpoints of an issuer's metadata the resource server uses. */
export interface IssuerEndpoints {
  readonly jwksUri: string | undefined;
  readonly introspectionEndpoint: string | undefined;
}

/** Discovers the issuer's metadata: OpenID Connect discovery, then RFC 8414 (path inserted); the
 * metadata must name the same issuer (mix-up protection). */
export async function discoverIssuer(issuer: string, bounds: OAuthFetchBounds): Promise<IssuerEndpoints> {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/+$/, '');
  const candidates = [
    `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`,
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
  ];
  let last: unknown;
  for (const candidate of candidates) {
    try {
      const metadata = await fetchJsonObject(candidate, bounds);
      if (metadata['issuer'] !== issuer) throw new OAuthFetchError('issuer-mismatch');
      return {
        jwksUri: typeof metadata['jwks_uri'] === 'string' ? metadata['jwks_uri'] : undefined,
        introspectionEndpoint:
          typeof metadata['introspection_endpoint'] === 'string'
            ? metadata['introspection_endpoint']
            : undefined,
      };
    } catch (error) {
      last = error;
      // A denied or unreachable address stays so for the second form: stop at once.
      if (error instanceof OAuthFetchError && error.failure !== 'status') throw error;
    }
  }
  throw last instanceof Error ? last : new OAuthFetchError('status');
}
