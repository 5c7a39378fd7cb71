// `agent-gateway serve` start-up failures a new user meets (issue 8 item 16): a busy port is named
// as host:port together with how to choose another one; a start that fails half-way exits (issue 21).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { startRedis } from '../infra/redis-server.js';
import { testEncryption, testEncryptionEnv } from '../support/redis-encryption.js';
import { cli } from '../unit/cli/cli-harness.js';

let blocker: Server;
let port: number;
let dir: string;

beforeAll(async () => {
  blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  port = (blocker.address() as AddressInfo).port;
  dir = await mkdtemp(join(tmpdir(), 'agw-serve-'));
});
afterAll(async () => {
  await new Promise((resolve) => blocker.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

it('cli:address-in-use — a busy port is named as host:port with the flag to pick another', async () => {
  const file = join(dir, 'gateway.yaml');
  await writeFile(file, 'version: 1\nworkspaces: []\n');
  const run = await cli(
    'serve',
    '--config',
    file,
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--log-level',
    'silent',
  );
  expect(run.code).toBe(1);
  expect(run.err.join('\n')).toContain(`127.0.0.1:${port} is already in use`);
  expect(run.err.join('\n')).toContain('--port');
});

it('cli:start-failure-exits — a start that fails after opening Redis exits 1 instead of hanging', async () => {
  // PostgreSQL refuses (nothing listens) after Redis is connected: the half-made start must not keep
  // the process alive, or a pod would sit Running, never Ready, and never restarted.
  const redis = await startRedis();
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const pgPort = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  try {
    const file = join(dir, 'half-start.yaml');
    await writeFile(
      file,
      stringify({
        version: 1,
        server: { host: '127.0.0.1', port: 0 },
        sharedState: { redis: { url: { env: 'REDIS_URL' } }, encryption: testEncryption },
        knowledge: { postgres: { connectionString: { env: 'PG_URL' } } },
        workspaces: [],
      }),
    );
    const started = Date.now();
    const exit = await new Promise<{ code: number | null; err: string }>((resolve) => {
      const child = spawn(
        process.execPath,
        ['bin/agent-gateway.js', 'serve', '--config', file, '--log-level', 'silent'],
        {
          env: {
            ...process.env,
            ...testEncryptionEnv,
            REDIS_URL: redis.url,
            PG_URL: `postgresql://agw:x@127.0.0.1:${pgPort}/agw`,
          },
          stdio: ['ignore', 'ignore', 'pipe'],
        },
      );
      let err = '';
      child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      child.on('exit', (code) => {
        clearTimeout(timer);
        resolve({ code, err });
      });
    });
    expect(exit.err).toContain('failed to start');
    expect(exit.code).toBe(1);
    expect(Date.now() - started).toBeLessThan(20_000);
  } finally {
    await redis.stop();
  }
});
