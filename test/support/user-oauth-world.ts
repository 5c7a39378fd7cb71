// The world of a `user` source (issue 42), shared by the tests that connect accounts through the
// gateway: oidc-provider as the SaaS authorization server (dynamic client registration,
// authorization code with PKCE and `resource`, refresh tokens rotated on use), a real MCP server that
// accepts only tokens for its own audience (test/fixtures/upstreams/audience-bound-server.ts), and
// the gateway document of one workspace `team` whose source `saas` connects per user, with a SQLite
// connection store. `rawToolCall` is one raw 2026 tools/call as a client would send it.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  startAudienceBoundServer,
  type AudienceBoundServer,
} from '../fixtures/upstreams/audience-bound-server.js';
import { startAuthServer, type AuthServer, type ResourceServerInfo } from '../infra/oidc-provider.js';
import type { GeneratedKey } from '../../gateway/auth/index.js';
import { httpSource, keyRecord } from './gateway-document.js';
import { MODERN_META, mcpPost } from './gateway-harness.js';

/** The key the connection store's tokens are encrypted with (AGW_CONNECTION_KEY). */
export const CONNECTION_KEY = 'user-connection-key-0123456789-abcdefghij';

export interface UserOAuthWorld {
  readonly as: AuthServer;
  readonly upstream: AudienceBoundServer;
  /** The authorization server's resources by indicator: change an entry to change its tokens' TTL. */
  readonly resources: Record<string, ResourceServerInfo>;
  /** A SQLite file for the connection store, in a fresh temp dir. */
  readonly sqlitePath: string;
  stop(): Promise<void>;
}

/** `signIn`: the same server also signs people in to the gateway (scope `mcp:read`, registration
 * answering CORS for the console); add the gateway's resource to `resources` once its port is known. */
export async function startUserOAuthWorld(options: { signIn?: boolean } = {}): Promise<UserOAuthWorld> {
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
  resources[upstream.url] = { scope: 'tools:read', ttlSeconds: 3600 };
  const sqlitePath = join(await mkdtemp(join(tmpdir(), 'agw-conn-')), 'connections.db');
  return {
    as,
    upstream,
    resources,
    sqlitePath,
    async stop() {
      await upstream.stop();
      await as.stop();
    },
  };
}

/** The gateway document: workspace `team` with `keys` and the `user` source `saas`, listening on
 * `port` (its public URL is the loopback one). `server` adds to the server section; `signIn` lets
 * anyone of the world's authorization server sign in to `team` (at its own resource, /w/team/mcp). */
export function userOAuthDocument(
  world: UserOAuthWorld,
  port: number,
  keys: readonly GeneratedKey[],
  options: { server?: Record<string, unknown>; sqlitePath?: string; signIn?: boolean } = {},
): Record<string, unknown> {
  const sqlitePath = options.sqlitePath ?? world.sqlitePath;
  const issuer = world.as.issuer;
  return {
    server: { host: '127.0.0.1', port, publicUrl: `http://127.0.0.1:${port}`, ...options.server },
    userConnections: { sqlitePath, encryption: { keys: [{ env: 'AGW_CONNECTION_KEY' }] } },
    ...(options.signIn === true ? { oauth: { scopesSupported: ['mcp:read'] } } : {}),
    workspaces: [
      {
        name: 'team',
        keys: keys.map((key) => keyRecord(key)),
        ...(options.signIn === true
          ? { identity: { issuers: [{ issuer }], rules: [{ name: 'people', issuer }] } }
          : {}),
        mcpSources: [
          httpSource('saas', world.upstream.url, { credential: { type: 'user', scopes: ['tools:read'] } }),
        ],
      },
    ],
  };
}

export interface RawCallAnswer {
  readonly result?: Record<string, unknown>;
  readonly error?: { code: number; message: string };
}

/** One raw 2026 tools/call; `urlMode` declares the client's URL elicitation capability. */
export async function rawToolCall(
  gatewayUrl: string,
  key: string,
  name: string,
  extra: Record<string, unknown> = {},
  urlMode = true,
): Promise<RawCallAnswer> {
  const capabilities = urlMode ? { elicitation: { url: {} } } : {};
  const response = await mcpPost(gatewayUrl, key, {
    method: 'tools/call',
    params: {
      name,
      arguments: {},
      ...extra,
      _meta: { ...MODERN_META, 'io.modelcontextprotocol/clientCapabilities': capabilities },
    },
  });
  return (await response.json()) as RawCallAnswer;
}

/** The elicitation link of an `input_required` answer (`<publicUrl>/connect?ticket=…`). */
export function connectLinkOf(answer: RawCallAnswer): string {
  const requests = answer.result?.['inputRequests'] as
    Record<string, { params?: { url?: unknown } }> | undefined;
  const url = requests?.['agw_connect']?.params?.url;
  if (typeof url !== 'string') throw new Error(`no connect link in ${JSON.stringify(answer)}`);
  return url;
}
