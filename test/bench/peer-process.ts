// A benchmark peer as a child process (nginx, vMCP, agentgateway): spawned with its stderr's tail
// kept for the reason it did not start, and stopped with SIGTERM, waiting for its exit before its
// temporary directory is removed.
import { spawn, type ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';

export interface PeerProcess {
  readonly child: ChildProcess;
  /** The last 4,000 characters it wrote on stderr. */
  readonly stderr: () => string;
  readonly stop: () => Promise<void>;
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
  });
}

export function spawnPeer(binary: string, args: readonly string[], dir: string): PeerProcess {
  const child = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-4000)));
  return {
    child,
    stderr: () => stderr,
    stop: async () => {
      child.kill('SIGTERM');
      await exited(child);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
