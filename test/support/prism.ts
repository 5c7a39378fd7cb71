// A real OpenAPI mock server for the tests (issue 44): Stoplight Prism (`@stoplight/prism-cli`)
// serving a document on a free loopback port, stopped after the tests.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from '../infra/free-port.js';
import { until } from './until.js';

export interface RunningPrism {
  readonly url: string;
  close(): Promise<void>;
}

export async function startPrism(documentPath: string): Promise<RunningPrism> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    [
      join('node_modules', '@stoplight', 'prism-cli', 'dist', 'index.js'),
      'mock',
      '-h',
      '127.0.0.1',
      '-p',
      String(port),
      documentPath,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  try {
    await until(
      `prism to listen on ${port}`,
      async () => ((await fetch(url).catch(() => undefined)) !== undefined ? true : undefined),
      60_000,
    );
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`prism did not start: ${output.slice(-2000)}`, { cause: error });
  }
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
