// The world of the console's connection tests (issue 42): the SaaS of support/user-source.ts (its
// authorization server optionally also signing people in to the gateway), a SQLite file for the
// connection store, and the gateway document of workspace `team` whose source `saas` connects per
// user, optionally admitting the server's people by OAuth.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GeneratedKey } from '../../gateway/auth/index.js';
import { connectUrlOf, saasWorkspace, startSaas, type RawAnswer, type Saas } from './user-source.js';

export { rawCall as rawToolCall } from './user-source.js';

/** The key the connection store's tokens are encrypted with (AGW_CONNECTION_KEY). */
export const CONNECTION_KEY = 'user-connection-key-0123456789-abcdefghij';

export interface UserOAuthWorld extends Saas {
  /** A SQLite file for the connection store, in a fresh temp dir. */
  readonly sqlitePath: string;
}

export async function startUserOAuthWorld(options: { signIn?: boolean } = {}): Promise<UserOAuthWorld> {
  const saas = await startSaas(options);
  const sqlitePath = join(await mkdtemp(join(tmpdir(), 'agw-conn-')), 'connections.db');
  return { ...saas, sqlitePath };
}

/** The gateway document: workspace `team` with `keys` and the `user` source `saas`, listening on
 * `port` (its public URL is the loopback one). `server` adds to the server section; `signIn` lets
 * anyone of the world's authorization server sign in to `team` (at its own resource, /w/team/mcp). */
export function userOAuthDocument(
  world: UserOAuthWorld,
  port: number,
  keys: readonly GeneratedKey[],
  options: { server?: Record<string, unknown>; signIn?: boolean } = {},
): Record<string, unknown> {
  const issuer = world.as.issuer;
  return {
    server: { host: '127.0.0.1', port, publicUrl: `http://127.0.0.1:${port}`, ...options.server },
    userConnections: { sqlitePath: world.sqlitePath, encryption: { keys: [{ env: 'AGW_CONNECTION_KEY' }] } },
    ...(options.signIn === true ? { oauth: { scopesSupported: ['mcp:read'] } } : {}),
    workspaces: [
      {
        ...saasWorkspace(world, keys),
        ...(options.signIn === true
          ? { identity: { issuers: [{ issuer }], rules: [{ name: 'people', issuer }] } }
          : {}),
      },
    ],
  };
}

/** The elicitation link of an `input_required` answer (`<publicUrl>/connect?ticket=…`). */
export function connectLinkOf(answer: RawAnswer): string {
  const url = connectUrlOf(answer);
  if (url === undefined) throw new Error(`no connect link in ${JSON.stringify(answer)}`);
  return url;
}
