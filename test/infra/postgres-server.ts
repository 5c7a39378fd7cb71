// A throwaway PostgreSQL server for integration tests and benchmarks (DESIGN §6): a fresh cluster in
// a temp dir, listening only on a Unix socket in that dir, started with the Debian package's
// binaries (installed by .ci/run when missing). As root the server runs as the `postgres` user,
// since PostgreSQL refuses to run as root. Tests connect as a non-superuser role so row-level
// security applies to them.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export interface PostgresServer {
  /** Connection settings for the unprivileged application role. */
  readonly app: { host: string; port: number; user: string; password: string; database: string };
  readonly admin: { host: string; port: number; user: string; database: string };
  stop(): void;
}

function binDir(): string {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base))
    throw new Error(
      'PostgreSQL server binaries not found: install the Debian package postgresql (.ci/run does)',
    );
  const version = readdirSync(base).sort((a, b) => Number(b) - Number(a))[0];
  return join(base, version as string, 'bin');
}

function asServerUser(command: string, args: string[]): void {
  const root = process.getuid?.() === 0;
  const result = root
    ? spawnSync('runuser', ['-u', 'postgres', '--', command, ...args], { encoding: 'utf8' })
    : spawnSync(command, args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} failed: ${result.stderr || result.stdout}`);
}

export function startPostgres(): PostgresServer {
  const bin = binDir();
  const dir = mkdtempSync(join(tmpdir(), 'agw-pg-'));
  const data = join(dir, 'data');
  chmodSync(dir, 0o755);
  if (process.getuid?.() === 0)
    chownSync(
      dir,
      Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim()),
      Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim()),
    );
  asServerUser(join(bin, 'initdb'), [
    '-D',
    data,
    '-U',
    'postgres',
    '--auth=trust',
    '-E',
    'UTF8',
    '--locale=C.UTF-8',
  ]);
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  asServerUser(join(bin, 'pg_ctl'), [
    '-D',
    data,
    '-w',
    '-l',
    join(dir, 'server.log'),
    '-o',
    `-k ${dir} -p ${port} -c listen_addresses='' -c fsync=off`,
    'start',
  ]);
  const admin = { host: dir, port, user: 'postgres', database: 'postgres' };
  const psql = (sql: string) => {
    const result = spawnSync(
      'psql',
      [
        '-h',
        dir,
        '-p',
        String(port),
        '-U',
        'postgres',
        '-d',
        'postgres',
        '-v',
        'ON_ERROR_STOP=1',
        '-q',
        '-c',
        sql,
      ],
      { encoding: 'utf8' },
    );
    if (result.status !== 0) throw new Error(`psql failed: ${result.stderr}`);
  };
  psql("CREATE ROLE agw_app LOGIN PASSWORD 'agw_app' NOSUPERUSER NOBYPASSRLS");
  psql('CREATE DATABASE agw OWNER postgres');
  return {
    app: { host: dir, port, user: 'agw_app', password: 'agw_app', database: 'agw' },
    admin: { ...admin, database: 'agw' },
    stop() {
      asServerUser(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', 'stop']);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Lets the application role create tables in the public schema, nothing more (PostgreSQL 15 and
 * later grant that to no role): what a store that creates its own tables needs. */
export async function allowAppTables(server: PostgresServer): Promise<void> {
  const admin = new pg.Client(server.admin);
  await admin.connect();
  try {
    await admin.query(`GRANT CREATE ON SCHEMA public TO ${server.app.user}`);
  } finally {
    await admin.end();
  }
}
