// A config change that lands while the gateway is still starting (issue 21, found on a real node):
// with PostgreSQL as the knowledge index the start waits on its connection, and the operator's writes
// of a new pod's first minute arrive meanwhile. The change used to reach a subscriber that touched
// the sync engine before it existed (a ReferenceError that killed the process); now the gateway starts
// and serves the changed config.
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { startGateway } from '../../gateway/main.js';
import { createPinoLogger } from '../../gateway/telemetry/index.js';
import { startPostgres, type PostgresServer } from '../infra/postgres-server.js';
import { demoSource, keyRecord, newKey } from '../support/gateway-document.js';
import { logLines } from '../support/gateway-harness.js';

let pg: PostgresServer;
let proxy: Server;
let proxyPort: number;
let dir: string;
let connectionsSeen = 0;
const HOLD_MS = 1_500;

beforeAll(async () => {
  pg = startPostgres();
  dir = await mkdtemp(join(tmpdir(), 'agw-start-change-'));
  // A TCP front for PostgreSQL that holds every new connection for HOLD_MS before relaying: the
  // gateway's start is then still waiting on its knowledge store when the config file changes.
  proxy = createServer((client: Socket) => {
    connectionsSeen += 1;
    client.pause();
    setTimeout(() => {
      const { host, port } = pg.app;
      const upstream = host.startsWith('/')
        ? connect({ path: join(host, `.s.PGSQL.${port}`) })
        : connect(port, host);
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
      client.pipe(upstream).pipe(client);
      client.resume();
    }, HOLD_MS);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyPort = (proxy.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((resolve) => proxy.close(resolve));
  pg.stop();
  await rm(dir, { recursive: true, force: true });
});

it('ops:config-change-during-start — a change while the knowledge store connects is served, not fatal', async () => {
  const key = newKey();
  const configPath = join(dir, 'gateway.yaml');
  const write = async (displayName: string) => {
    const temp = `${configPath}.tmp`;
    await writeFile(
      temp,
      stringify({
        version: 1,
        server: { host: '127.0.0.1', port: 0 },
        knowledge: { postgres: { connectionString: { env: 'PG_URL' } } },
        workspaces: [{ name: 'demo', displayName, mcpSources: [demoSource()], keys: [keyRecord(key)] }],
      }),
    );
    await rename(temp, configPath);
  };
  await write('before');
  const logs: string[] = [];
  const { user, password, database } = pg.app;
  const starting = startGateway({
    configPath,
    logger: createPinoLogger({
      level: 'info',
      destination: logLines(logs),
    }),
    env: { PG_URL: `postgresql://${user}:${password}@127.0.0.1:${proxyPort}/${database}` },
  });
  const crashes: unknown[] = [];
  const onError = (error: unknown) => crashes.push(error);
  process.on('uncaughtException', onError);
  try {
    // The change lands while the store's first connection is held.
    await new Promise((resolve) => setTimeout(resolve, HOLD_MS / 3));
    expect(connectionsSeen).toBeGreaterThan(0);
    await write('after');
    const gateway = await starting;
    try {
      const deadline = Date.now() + 10_000;
      while (gateway.config.current().config.workspaces[0]?.displayName !== 'after' && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(gateway.config.current().config.workspaces[0]?.displayName).toBe('after');
      const response = await fetch(`${gateway.url}/agent/tools`, {
        headers: { authorization: `Bearer ${key.key}`, accept: 'application/json' },
      });
      expect(response.status).toBe(200);
      expect(gateway.config.current().revision).toBeGreaterThan(1);
    } finally {
      await gateway.stop();
    }
  } finally {
    process.off('uncaughtException', onError);
  }
  // The kube source let the subscriber's throw kill the process; the file source logged it as a
  // failed reload (after swapping the config in, so only listeners after it were skipped).
  expect(crashes).toEqual([]);
  expect(logs.filter((line) => line.includes('reload failed') || line.includes('ReferenceError'))).toEqual(
    [],
  );
  expect(logs.some((line) => line.includes('config reloaded'))).toBe(true);
});
