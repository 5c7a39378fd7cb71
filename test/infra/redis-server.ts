// A real redis-server (Debian package) on a free loopback port with no persistence, for the
// shared-state tests. `kill()` stops it by PID like an outage would; `restart()` brings it back on
// the same port (empty, as after a crash without persistence); `pause()`/`resume()` stall it with
// SIGSTOP/SIGCONT (connections stay open, nothing answers), the slow-Redis case.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';

export interface RunningRedis {
  readonly url: string;
  readonly port: number;
  pid(): number;
  kill(): Promise<void>;
  restart(): Promise<void>;
  pause(): void;
  resume(): void;
  stop(): Promise<void>;
}

function accepting(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.write('PING\r\n');
    });
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().startsWith('+PONG'));
    });
    socket.once('error', () => resolve(false));
  });
}

export async function startRedis(): Promise<RunningRedis> {
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'agw-redis-'));
  let child: ChildProcess;
  const launch = async () => {
    child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
      { stdio: 'ignore' },
    );
    const deadline = Date.now() + 10_000;
    while (!(await accepting(port))) {
      if (Date.now() > deadline) throw new Error('redis-server did not start');
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const kill = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  };
  await launch();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    pid: () => child.pid as number,
    kill,
    restart: launch,
    pause: () => void child.kill('SIGSTOP'),
    resume: () => void child.kill('SIGCONT'),
    stop: async () => {
      await kill();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
