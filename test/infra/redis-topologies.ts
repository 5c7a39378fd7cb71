// The other shapes of Redis a deployment may give the gateway, each from the Debian redis-server on
// loopback: a TLS-only server (a throw-away CA and certificate made with openssl), a master watched
// by one Sentinel, and a three-master Cluster (joined with redis-cli --cluster create).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port.js';

const run = promisify(execFile);

export interface RunningTopology {
  /** What goes in sharedState.redis.url. */
  readonly url: string;
  /** The CA bundle (PEM) for TLS. */
  readonly ca?: string;
  stop(): Promise<void>;
}

async function until(check: () => Promise<boolean>, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`${what} did not come up`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function cli(port: number, ...args: string[]): Promise<string> {
  return (await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args])).stdout;
}

function server(dir: string, args: string[]): ChildProcess {
  return spawn(
    'redis-server',
    [...args, '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    {
      stdio: 'ignore',
    },
  );
}

async function stopAll(children: ChildProcess[], dir: string): Promise<void> {
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGKILL');
        }),
    ),
  );
  await rm(dir, { recursive: true, force: true });
}

export async function startTlsRedis(): Promise<RunningTopology> {
  const dir = await mkdtemp(join(tmpdir(), 'agw-redis-tls-'));
  const file = (name: string) => join(dir, name);
  await run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '1',
    '-subj',
    '/CN=test-ca',
    '-keyout',
    file('ca.key'),
    '-out',
    file('ca.pem'),
  ]);
  await run('openssl', [
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    '/CN=redis.test',
    '-keyout',
    file('server.key'),
    '-out',
    file('server.csr'),
  ]);
  await writeFile(file('ext.cnf'), 'subjectAltName=DNS:redis.test,IP:127.0.0.1\n');
  await run('openssl', [
    'x509',
    '-req',
    '-in',
    file('server.csr'),
    '-CA',
    file('ca.pem'),
    '-CAkey',
    file('ca.key'),
    '-CAcreateserial',
    '-days',
    '1',
    '-extfile',
    file('ext.cnf'),
    '-out',
    file('server.pem'),
  ]);
  const port = await freePort();
  const child = server(dir, [
    '--port',
    '0',
    '--tls-port',
    String(port),
    '--tls-cert-file',
    file('server.pem'),
    '--tls-key-file',
    file('server.key'),
    '--tls-ca-cert-file',
    file('ca.pem'),
    '--tls-auth-clients',
    'no',
  ]);
  const ca = await readFile(file('ca.pem'), 'utf8');
  await until(
    async () =>
      (
        await run('redis-cli', [
          '--tls',
          '--cacert',
          file('ca.pem'),
          '-h',
          '127.0.0.1',
          '-p',
          String(port),
          'PING',
        ])
      ).stdout.includes('PONG'),
    'TLS redis-server',
  );
  return { url: `rediss://127.0.0.1:${port}`, ca, stop: () => stopAll([child], dir) };
}

export async function startSentinelRedis(): Promise<RunningTopology> {
  const dir = await mkdtemp(join(tmpdir(), 'agw-redis-sentinel-'));
  const masterPort = await freePort();
  const master = server(dir, ['--port', String(masterPort)]);
  await until(async () => (await cli(masterPort, 'PING')).includes('PONG'), 'sentinel master');
  const sentinelPort = await freePort();
  const config = join(dir, 'sentinel.conf');
  await writeFile(
    config,
    [
      `port ${sentinelPort}`,
      'bind 127.0.0.1',
      `dir ${dir}`,
      `sentinel monitor agw-master 127.0.0.1 ${masterPort} 1`,
      '',
    ].join('\n'),
  );
  const sentinel = spawn('redis-server', [config, '--sentinel'], { stdio: 'ignore' });
  await until(
    async () =>
      (await cli(sentinelPort, 'SENTINEL', 'get-master-addr-by-name', 'agw-master')).includes(
        String(masterPort),
      ),
    'sentinel',
  );
  return {
    url: `redis-sentinel://127.0.0.1:${sentinelPort}/agw-master`,
    stop: () => stopAll([sentinel, master], dir),
  };
}

export async function startClusterRedis(masters = 3): Promise<RunningTopology> {
  const dir = await mkdtemp(join(tmpdir(), 'agw-redis-cluster-'));
  const ports: number[] = [];
  const children: ChildProcess[] = [];
  for (let i = 0; i < masters; i += 1) {
    const port = await freePort();
    ports.push(port);
    children.push(
      server(dir, [
        '--port',
        String(port),
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        `nodes-${port}.conf`,
      ]),
    );
  }
  for (const port of ports)
    await until(async () => (await cli(port, 'PING')).includes('PONG'), 'cluster node');
  await run('redis-cli', [
    '--cluster',
    'create',
    ...ports.map((p) => `127.0.0.1:${p}`),
    '--cluster-replicas',
    '0',
    '--cluster-yes',
  ]);
  for (const port of ports)
    await until(
      async () => (await cli(port, 'CLUSTER', 'INFO')).includes('cluster_state:ok'),
      'cluster state',
    );
  return {
    url: `redis-cluster://${ports.map((p) => `127.0.0.1:${p}`).join(',')}`,
    stop: () => stopAll(children, dir),
  };
}
