// The SaaS behind a `user` source (issue 42) as the per-user connection tests run it, with real
// parts: oidc-provider as its authorization server (dynamic client registration, authorization code
// with PKCE and `resource`, a refresh token for every code, rotated on every use) and an MCP server
// that accepts only that server's tokens for its own audience (whoami names the token's subject).
// Also the workspace that reaches it as `saas`, and the raw calls and reads the tests make of a
// gateway in front of it.
import { expect } from 'vitest';
import {
  startAudienceBoundServer,
  type AudienceBoundServer,
} from '../fixtures/upstreams/audience-bound-server.js';
import { startAuthServer, type AuthServer, type ResourceServerInfo } from '../infra/oidc-provider.js';
import type { GeneratedKey } from '../../gateway/auth/index.js';
import { httpSource, keyRecord } from './gateway-document.js';
import { MODERN_META, mcpPost } from './gateway-harness.js';

export interface Saas {
  readonly as: AuthServer;
  readonly upstream: AudienceBoundServer;
  /** The authorization server's resources by indicator (add the gateway's to sign people in). */
  readonly resources: Record<string, ResourceServerInfo>;
  /** The lifetime of the access tokens the authorization server issues for the upstream from now
   * on (3600 s to start with). */
  tokenLifetime(seconds: number): void;
  /** Token endpoint requests so far (code exchanges and refreshes). */
  tokenRequests(): number;
  stop(): Promise<void>;
}

/** `signIn`: the same server also signs people in to the gateway (scope `mcp:read`, registration
 * answering CORS for the console); add the gateway's resource to `resources` once its port is known. */
export async function startSaas(options: { signIn?: boolean } = {}): Promise<Saas> {
  const resources: Record<string, ResourceServerInfo> = {};
  const signIn = options.signIn === true;
  const as = await startAuthServer({
    resources,
    scopes: signIn ? ['tools:read', 'mcp:read'] : ['tools:read'],
    registrationCors: signIn,
    issueRefreshToken: () => true,
    rotateRefreshToken: 'always',
  });
  const upstream = await startAudienceBoundServer({ issuer: as.issuer, scopes: ['tools:read'] });
  const tokenLifetime = (seconds: number) => {
    resources[upstream.url] = { scope: 'tools:read', ttlSeconds: seconds };
  };
  tokenLifetime(3600);
  return {
    as,
    upstream,
    resources,
    tokenLifetime,
    tokenRequests: () => as.requests.get('/token') ?? 0,
    async stop() {
      await upstream.stop();
      await as.stop();
    },
  };
}

/** The workspace `team`: `keys` (one user each) and the source `saas` with a `user` credential. */
export function saasWorkspace(saas: Saas, keys: readonly GeneratedKey[]): Record<string, unknown> {
  return {
    name: 'team',
    keys: keys.map((key) => keyRecord(key)),
    mcpSources: [
      httpSource('saas', saas.upstream.url, { credential: { type: 'user', scopes: ['tools:read'] } }),
    ],
  };
}

export interface RawAnswer {
  readonly result?: Record<string, unknown>;
  readonly error?: { code: number; message: string };
}

/** One raw 2026 request of `method` (its Mcp-Name from the params' name or uri), declaring URL
 * elicitation (or no client capabilities when `urlMode` is false). */
export async function rawRequest(
  gatewayUrl: string,
  key: string,
  method: string,
  params: Record<string, unknown>,
  urlMode = true,
): Promise<RawAnswer> {
  const capabilities = urlMode ? { elicitation: { url: {} } } : {};
  const response = await mcpPost(gatewayUrl, key, {
    method,
    params: {
      ...params,
      _meta: { ...MODERN_META, 'io.modelcontextprotocol/clientCapabilities': capabilities },
    },
  });
  return (await response.json()) as RawAnswer;
}

/** One raw 2026 tools/call (see rawRequest); `extra` adds to its params. */
export function rawCall(
  gatewayUrl: string,
  key: string,
  name: string,
  extra: Record<string, unknown> = {},
  urlMode = true,
): Promise<RawAnswer> {
  return rawRequest(gatewayUrl, key, 'tools/call', { name, arguments: {}, ...extra }, urlMode);
}

/** The URL of the connect elicitation an answer asks for, or undefined when it asks for none. */
export function connectUrlOf(answer: RawAnswer): string | undefined {
  if (answer.result?.['resultType'] !== 'input_required') return undefined;
  const requests = answer.result['inputRequests'] as Record<
    string,
    { method: string; params: { mode?: string; url?: string } }
  >;
  const request = requests['agw_connect'];
  expect(request?.method).toBe('elicitation/create');
  expect(request?.params.mode).toBe('url');
  return request?.params.url;
}

/** The subject whoami names in an answer (undefined when it was not served). */
export function servedAs(answer: RawAnswer): string | undefined {
  const structured = answer.result?.['structuredContent'] as { sub?: string } | undefined;
  return structured?.sub;
}

/** The caller's connections as GET /agent/connections lists them (JSON). */
export async function connectionsOf(gatewayUrl: string, key: string): Promise<Record<string, unknown>[]> {
  const response = await fetch(`${gatewayUrl}/agent/connections?response_format=json`, {
    headers: { authorization: `Bearer ${key}` },
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { connections: Record<string, unknown>[] }).connections;
}

/** Waits until the clock is past `ms` (an access token's expiry, at most a few seconds away). */
export async function pastTime(ms: number): Promise<void> {
  expect(ms - Date.now()).toBeLessThan(5_000);
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, ms - Date.now() + 50)));
}
