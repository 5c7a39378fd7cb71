// Which authorization server a `user` source's users consent at (issue 42), and its endpoints: the
// declared issuer, else the first server the upstream names in its protected-resource metadata
// (RFC 9728 §3: the well-known URL with the resource's path, then without), whose `resource` must be
// the upstream's own URL (§3.3: metadata that speaks for another resource is not believed). The
// server's metadata must name the same issuer (RFC 8414 §3.3, the mix-up defence) and offer PKCE
// with S256 (the MCP authorization spec: a client refuses a server that does not). Each lookup goes
// through the workspace's network path; answers are kept an hour per path, failures not at all.
import type { UserCredential } from '../config/index.js';
import {
  endpointField,
  getJson,
  readServerMetadata,
  UpstreamTokenError,
  type EndpointDeps,
} from './token-endpoint.js';

export interface AuthorizationServer {
  readonly issuer: string;
  readonly authorizationEndpoint: string;
  readonly tokenEndpoint: string;
  readonly registrationEndpoint?: string | undefined;
  /** RFC 7009 token revocation, when the server offers it. */
  readonly revocationEndpoint?: string | undefined;
  /** The server sends `iss` in its authorization responses (RFC 9207): then it must be there. */
  readonly sendsIssuer: boolean;
  readonly scopesSupported?: readonly string[] | undefined;
}

/** One `user` source as the consent flow sees it, with its workspace's network path. */
export interface UserSourceTarget {
  readonly workspace: string;
  readonly source: string;
  /** The upstream's URL (the default resource). */
  readonly url: string;
  readonly credential: UserCredential;
  readonly deps: EndpointDeps;
  /** Names the network path (the workspace's reach policy), for caches. */
  readonly path: string;
}

const TTL_MS = 3_600_000;

/** RFC 9728 §3.1: the well-known prefix inserted before the resource's path; then the origin's. */
export function resourceMetadataUrls(resource: string): string[] {
  const url = new URL(resource);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  const base = `${url.origin}/.well-known/oauth-protected-resource`;
  return path === '' ? [base] : [`${base}${path}`, base];
}

function sameResource(named: unknown, resource: string): boolean {
  if (typeof named !== 'string') return false;
  try {
    const a = new URL(named);
    const b = new URL(resource);
    return a.origin === b.origin && a.pathname.replace(/\/$/, '') === b.pathname.replace(/\/$/, '');
  } catch {
    return false;
  }
}

async function issuerFromResource(resource: string, deps: EndpointDeps): Promise<string> {
  for (const url of resourceMetadataUrls(resource)) {
    const answer = await getJson(url, deps);
    if (answer.status !== 200) continue;
    const body = answer.body as Record<string, unknown> | undefined;
    if (typeof body !== 'object' || body === null || !sameResource(body['resource'], resource))
      throw new UpstreamTokenError('malformed', 'the protected-resource metadata names another resource');
    const servers = body['authorization_servers'];
    const first = Array.isArray(servers) ? (servers[0] as unknown) : undefined;
    if (typeof first !== 'string' || !/^https?:\/\//.test(first))
      throw new UpstreamTokenError(
        'malformed',
        'the protected-resource metadata names no authorization server',
      );
    return first;
  }
  throw new UpstreamTokenError('malformed', 'the upstream publishes no protected-resource metadata');
}

async function lookUp(target: UserSourceTarget): Promise<AuthorizationServer> {
  const resource = target.credential.resource ?? target.url;
  const issuer = target.credential.issuer ?? (await issuerFromResource(resource, target.deps));
  const metadata = await readServerMetadata(issuer, target.deps);
  const authorizationEndpoint = endpointField(metadata, 'authorization_endpoint');
  const tokenEndpoint = endpointField(metadata, 'token_endpoint');
  if (authorizationEndpoint === undefined || tokenEndpoint === undefined)
    throw new UpstreamTokenError('malformed', 'the metadata lacks the authorization or token endpoint');
  const methods = metadata['code_challenge_methods_supported'];
  if (!Array.isArray(methods) || !methods.includes('S256'))
    throw new UpstreamTokenError('malformed', 'the authorization server does not offer PKCE with S256');
  const scopes = metadata['scopes_supported'];
  return {
    issuer,
    authorizationEndpoint,
    tokenEndpoint,
    registrationEndpoint: endpointField(metadata, 'registration_endpoint'),
    revocationEndpoint: endpointField(metadata, 'revocation_endpoint'),
    sendsIssuer: metadata['authorization_response_iss_parameter_supported'] === true,
    scopesSupported: Array.isArray(scopes)
      ? scopes.filter((s): s is string => typeof s === 'string')
      : undefined,
  };
}

export class AuthorizationServers {
  private readonly known = new Map<string, { server: Promise<AuthorizationServer>; until: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  of(target: UserSourceTarget): Promise<AuthorizationServer> {
    const key = `${target.path}\0${target.credential.issuer ?? ''}\0${target.credential.resource ?? target.url}`;
    const entry = this.known.get(key);
    if (entry !== undefined && this.now() < entry.until) return entry.server;
    const server = lookUp(target);
    const fresh = { server, until: this.now() + TTL_MS };
    this.known.set(key, fresh);
    server.catch(() => {
      if (this.known.get(key) === fresh) this.known.delete(key);
    });
    return server;
  }
}
