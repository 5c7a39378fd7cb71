// Users' connections to `user` sources (issue 42), built once: the store (SQLite in one process,
// PostgreSQL shared by replicas; open-connection-rows.ts), the cipher that seals their tokens (keys
// from `userConnections.encryption.keys`, the first encrypts, all decrypt), the consent seal under
// the same keys, and the resolver that gives the consent flow a source as configured now with its
// workspace's network path. A store that outlives the process needs configured keys: a random key
// would leave every stored grant unreadable after a restart.
import type { Logger as PinoLogger } from 'pino';
import { InvalidConfigError, resolveSecret, type ConfigSource, type SecretReader } from '../config/index.js';
import {
  ConnectionVault,
  ConsentSeal,
  openConnectionRows,
  UserConnections,
  type ConnectionRows,
  type UserSourceTarget,
} from '../connections/index.js';
import type { AuthorizationServerPool, TenantReach } from '../reach/index.js';
import { MIN_SECRET_CHARS, ValueCipher } from '../shared-state/value-cipher.js';
import { workspaceScope } from './tenant-reach.js';
import { randomBytes } from 'node:crypto';

const KEYS_FIELD = 'userConnections.encryption.keys';

export interface UserConnectionParts {
  readonly connections: UserConnections;
  readonly rows: ConnectionRows;
}

function cipherOf(config: ConfigSource, secrets: SecretReader, persistent: boolean): ValueCipher {
  const settings = config.current().config.userConnections;
  const keys = settings.encryption?.keys;
  if (keys === undefined || keys.length === 0) {
    if (persistent)
      throw new InvalidConfigError('userConnections', [
        {
          path: KEYS_FIELD,
          message:
            'is required when connections are stored (sqlitePath or postgres): tokens are sealed with these keys, and a random key would leave them unreadable after a restart',
        },
      ]);
    return new ValueCipher([randomBytes(MIN_SECRET_CHARS).toString('base64url')], KEYS_FIELD);
  }
  return new ValueCipher(
    keys.map((key) => resolveSecret(key, secrets)),
    KEYS_FIELD,
  );
}

export async function openUserConnections(options: {
  readonly config: ConfigSource;
  readonly secrets: SecretReader;
  readonly logger: PinoLogger;
}): Promise<UserConnectionParts> {
  const { config, secrets, logger } = options;
  const settings = config.current().config.userConnections;
  const persistent = settings.postgres !== undefined || settings.sqlitePath !== ':memory:';
  const cipher = cipherOf(config, secrets, persistent);
  const rows = await openConnectionRows(settings, secrets, logger);
  const server = config.current().config.server;
  const connections = new UserConnections({
    vault: new ConnectionVault(rows, cipher),
    seal: new ConsentSeal(cipher),
    secrets,
    // In a cluster a workspace may add a user source to gateways without one: its calls say so.
    publicUrl: server.publicUrl,
  });
  return { connections, rows };
}

/** A workspace's `user` source as configured now, with the workspace's path to the network. */
export function userSourceTargets(
  config: ConfigSource,
  reach: TenantReach,
  authorizationServers: Pick<AuthorizationServerPool, 'fetchFor'>,
): (workspace: string, source: string) => UserSourceTarget | undefined {
  return (workspace, name) => {
    const source = config
      .current()
      .config.workspaces.find((w) => w.name === workspace)
      ?.mcpSources.find((s) => s.name === name);
    if (source?.credential?.type !== 'user' || source.url === undefined) return undefined;
    const guard = reach.guard(workspaceScope(config, workspace));
    return {
      workspace,
      source: source.name,
      url: source.url,
      credential: source.credential,
      deps: {
        fetch: authorizationServers.fetchFor(guard),
        timeoutMs: Math.max(1000, source.timeouts.connectMs),
        now: Date.now,
      },
      path: guard === undefined ? '' : JSON.stringify(guard.scope),
    };
  };
}
