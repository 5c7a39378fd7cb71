// The container image (issue 11), built and run without a daemon: image/build.sh assembles it with
// buildah from Debian packages and the npm `node` package; skopeo reads its config; umoci unpacks
// it to check what is inside; image/run.sh runs it with runc (read-only root, uid 65532, host
// network) as an embedded gateway in front of a real upstream, and SIGTERM drains it.
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { stringify } from 'yaml';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startModernServer, type RunningModernServer } from '../fixtures/upstreams/modern-server.js';
import { freePort } from '../infra/free-port.js';
import { httpSource, keyRecord, newKey } from '../support/gateway-document.js';
import { get, mcpPost } from '../support/gateway-harness.js';
import { until } from '../support/until.js';

const run = promisify(execFile);
let dir: string;
let archive: string;
let buildLog: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agw-image-'));
  const built = await run('bash', ['image/build.sh', join(dir, 'out')], {
    maxBuffer: 16 << 20,
    timeout: 600_000,
  });
  archive = built.stdout.trim().split('\n').at(-1) as string;
  buildLog = built.stderr;
}, 600_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('image:built-daemonless — an OCI image: non-root, entry point, production dependencies only, size reported', async () => {
  expect(existsSync(archive)).toBe(true);
  expect(buildLog).toMatch(/unpacked, \d+M as an OCI archive/);
  const { stdout } = await run('skopeo', ['inspect', '--config', `oci-archive:${archive}`]);
  const config = (JSON.parse(stdout) as { config: Record<string, unknown> }).config;
  expect(config['User']).toBe('65532:65532');
  expect(config['Entrypoint']).toEqual(['/usr/local/bin/node', '/app/bin/agent-gateway.js']);
  expect(config['Cmd']).toEqual(['serve', '--kubernetes']);
  expect(config['Env']).toContain('NODE_ENV=production');
  expect(Object.keys(config['ExposedPorts'] as object)).toEqual(['8080/tcp']);

  await run('tar', ['-xf', archive, '-C', await mkdtempIn('layout')]);
  const bundle = join(dir, 'bundle');
  await run('umoci', ['unpack', '--image', `${join(dir, 'layout')}:0.1.0`, bundle]);
  const rootfs = join(bundle, 'rootfs');
  for (const present of [
    'usr/local/bin/node',
    'usr/local/bin/agw-bridge',
    'app/dist/gateway/cli/cli-main.js',
    'app/dist/operator/operator-main.js',
    'app/node_modules/fastify',
    'etc/ssl/certs/ca-certificates.crt',
  ])
    expect(existsSync(join(rootfs, present)), present).toBe(true);
  for (const absent of [
    'app/node_modules/typescript',
    'app/node_modules/vitest',
    'app/node_modules/node',
    'app/node_modules/eslint',
    'app/gateway',
    'bin/sh',
    'usr/bin/apt',
  ])
    expect(existsSync(join(rootfs, absent)), absent).toBe(false);
  expect((await stat(join(rootfs, 'var/lib/agent-gateway'))).uid).toBe(65532);
  // The static bridge (issue 40) installs itself where an init container would put it.
  const installed = join(dir, 'agw', 'bridge');
  await run('mkdir', ['-p', join(dir, 'agw')]);
  await run(join(rootfs, 'usr/local/bin/agw-bridge'), ['--install', installed]);
  expect((await stat(installed)).mode & 0o777).toBe(0o755);
}, 120_000);

async function mkdtempIn(name: string): Promise<string> {
  const path = join(dir, name);
  await run('mkdir', ['-p', path]);
  return path;
}

it('image:runs-read-only — the image serves as uid 65532 on a read-only root; SIGTERM drains it', async () => {
  let upstream: RunningModernServer | undefined;
  const key = newKey();
  const name = `agw-image-${process.pid}`;
  try {
    upstream = await startModernServer();
    const port = await freePort();
    const configPath = join(dir, 'gateway.yaml');
    await writeFile(
      configPath,
      stringify({
        version: 1,
        server: { host: '127.0.0.1', port },
        workspaces: [
          {
            name: 'demo',
            mcpSources: [httpSource('up', upstream.url)],
            keys: [keyRecord(key)],
          },
        ],
      }),
    );
    const child = spawn(
      'bash',
      [
        'image/run.sh',
        archive,
        name,
        '--mount',
        `${configPath}:/etc/agent-gateway/gateway.yaml`,
        '--',
        'serve',
        '--config',
        '/etc/agent-gateway/gateway.yaml',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const url = `http://127.0.0.1:${port}`;
    await until(
      'the containerised gateway to listen',
      async () => ((await fetch(`${url}/healthz`).catch(() => undefined))?.status === 200 ? true : undefined),
      60_000,
    );

    const state = JSON.parse((await run('runc', ['state', name])).stdout) as { pid: number };
    const status = await readFile(`/proc/${state.pid}/status`, 'utf8');
    expect(/^Uid:\s+(\d+)/m.exec(status)?.[1]).toBe('65532');

    const tools = (await (await get(`${url}/agent/tools?response_format=json`, key.key)).json()) as {
      tools: { name: string }[];
    };
    expect(tools.tools.map((t) => t.name)).toContain('up__echo');
    const call = (await (
      await mcpPost(url, key.key, {
        method: 'tools/call',
        params: { name: 'up__echo', arguments: { text: 'from the image' } },
      })
    ).json()) as { result?: { content: { text: string }[] } };
    expect(call.result?.content[0]?.text).toBe('from the image');

    await run('runc', ['kill', name, 'TERM']);
    expect(await exited).toBe(0);
    expect(output).toContain('agent gateway stopped');
  } finally {
    await run('runc', ['delete', '-f', name]).catch(() => undefined);
    await upstream?.close();
  }
}, 120_000);
