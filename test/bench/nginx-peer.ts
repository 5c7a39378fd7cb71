// nginx (the Debian package) as a pure reverse proxy in front of one upstream, for the side-by-side
// MCP benchmark: keep-alive to the upstream, no buffering, no access log, one worker per CPU.
// Installed with apt-get when missing and running as root; `startNginx` answers the reason instead
// when nginx is not there or does not start.
import { spawnSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../infra/free-port.js';
import { spawnPeer } from './peer-process.js';

export interface RunningPeer {
  /** Where clients send MCP requests. */
  readonly url: string;
  readonly pid: number | undefined;
  stop(): Promise<void>;
}

function nginxBinary(): string | undefined {
  for (const candidate of [process.env['NGINX_BIN'], '/usr/sbin/nginx', 'nginx'])
    if (candidate !== undefined && spawnSync(candidate, ['-v']).status === 0) return candidate;
  return undefined;
}

async function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export async function startNginx(upstreamUrl: string): Promise<RunningPeer | string> {
  if (nginxBinary() === undefined && process.getuid?.() === 0) {
    console.log('  installing nginx-light (Debian package) for the side-by-side benchmark…');
    spawnSync('apt-get', ['install', '-y', '-q', 'nginx-light'], {
      stdio: 'ignore',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  }
  const binary = nginxBinary();
  if (binary === undefined) return 'nginx is not installed (Debian package nginx-light or nginx)';
  const upstream = new URL(upstreamUrl);
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'agw-bench-nginx-'));
  // Workers run as nobody when nginx starts as root: their temp directories must be theirs too.
  for (const sub of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) {
    await mkdir(join(dir, sub));
    await chmod(join(dir, sub), 0o777);
  }
  await writeFile(
    join(dir, 'nginx.conf'),
    [
      'worker_processes auto;',
      `pid ${dir}/nginx.pid;`,
      `error_log ${dir}/error.log error;`,
      'events { worker_connections 1024; }',
      'http {',
      '  access_log off;',
      ...['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
        (sub) => `  ${sub === 'body' ? 'client_body' : sub}_temp_path ${dir}/${sub};`,
      ),
      `  upstream mcp { server ${upstream.host}; keepalive 64; }`,
      '  server {',
      `    listen 127.0.0.1:${port};`,
      '    location / {',
      '      proxy_pass http://mcp;',
      '      proxy_http_version 1.1;',
      '      proxy_set_header Connection "";',
      '      proxy_buffering off;',
      '    }',
      '  }',
      '}',
      '',
    ].join('\n'),
  );
  const peer = spawnPeer(binary, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'], dir);
  const { child, stop } = peer;
  for (let attempt = 0; attempt < 100; attempt += 1) {
    if (child.exitCode !== null) break;
    if (await portOpen(port))
      return { url: `http://127.0.0.1:${port}${upstream.pathname}`, pid: child.pid, stop };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await stop();
  return `nginx did not start: ${peer.stderr().trim().slice(0, 200) || 'no output'}`;
}
