// `agent-gateway serve` start-up failures a new user meets (issue 8 item 16): a busy port is named
// as host:port together with how to choose another one.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
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
