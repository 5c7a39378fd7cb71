// Starts a benchmark participant as a child process and waits for a line on its output that says it
// is ready, so the gateway, the upstream and the load generator each get their own event loop.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface Child {
  readonly process: ChildProcess;
  readonly line: string;
  stop(): Promise<void>;
}

export async function startChild(
  args: string[],
  ready: RegExp,
  stream: 'stdout' | 'stderr' = 'stdout',
  env: NodeJS.ProcessEnv = process.env,
): Promise<Child> {
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'], env });
  const source = stream === 'stdout' ? child.stdout : child.stderr;
  const lines = createInterface({ input: source });
  const line = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`child ${args.join(' ')} did not become ready`)), 20_000);
    lines.on('line', (text) => {
      if (ready.test(text)) {
        clearTimeout(timer);
        resolve(text);
      }
    });
    child.once('exit', (code) => reject(new Error(`child exited early with ${String(code)}`)));
  });
  child.stdout.resume();
  child.stderr.resume();
  return {
    process: child,
    line,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
