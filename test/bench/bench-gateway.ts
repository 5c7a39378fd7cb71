// Starts `agent-gateway serve` as its own process for a benchmark: writes the config (loopback, a
// free port) into `dir` and waits for the "listening on" line. Logging is off unless asked.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { startChild, type Child } from './child-process.js';

export interface BenchGateway {
  /** Origin, e.g. http://127.0.0.1:41234 */
  readonly url: string;
  readonly child: Child;
  stop(): Promise<void>;
}

export async function startBenchGateway(
  dir: string,
  name: string,
  config: Record<string, unknown>,
  env: NodeJS.ProcessEnv = process.env,
  nodeArgs: readonly string[] = [],
): Promise<BenchGateway> {
  const configPath = join(dir, `${name}.yaml`);
  await writeFile(configPath, stringify({ version: 1, server: { host: '127.0.0.1', port: 0 }, ...config }));
  const child = await startChild(
    [...nodeArgs, 'bin/agent-gateway.js', 'serve', '--config', configPath, '--log-level', 'silent'],
    /listening on/,
    'stderr',
    env,
  );
  return { url: /listening on (\S+)/.exec(child.line)?.[1] as string, child, stop: () => child.stop() };
}
