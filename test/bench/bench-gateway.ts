// Starts `agent-gateway serve` as its own process for a benchmark: writes the config (loopback, a
// free port) into `dir` and waits for the "listening on" line. Logging is off unless asked.
// `writeGatewayConfig` is the config-writing half, also used by tests that start gateways their way.
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

/** Writes `<dir>/<name>.yaml`: config version 1 on loopback with a port the OS picks, plus `config`
 * (workspaces, sharedState, …). Returns its path. */
export async function writeGatewayConfig(
  dir: string,
  config: Record<string, unknown>,
  name = 'gateway',
): Promise<string> {
  const configPath = join(dir, `${name}.yaml`);
  await writeFile(configPath, stringify({ version: 1, server: { host: '127.0.0.1', port: 0 }, ...config }));
  return configPath;
}

/** The config most relay benches start from: workspace `bench` with one streamable-HTTP source `up`
 * at `upstreamUrl` and one write key. */
export function oneSourceConfig(
  upstreamUrl: string,
  key: { readonly id: string; readonly hash: string },
): Record<string, unknown> {
  return {
    workspaces: [
      {
        name: 'bench',
        mcpSources: [{ name: 'up', transport: 'streamable-http', url: upstreamUrl }],
        keys: [{ id: key.id, hash: key.hash, access: 'write' }],
      },
    ],
  };
}

export async function startBenchGateway(
  dir: string,
  name: string,
  config: Record<string, unknown>,
  env: NodeJS.ProcessEnv = process.env,
  nodeArgs: readonly string[] = [],
): Promise<BenchGateway> {
  const configPath = await writeGatewayConfig(dir, config, name);
  const child = await startChild(
    [...nodeArgs, 'bin/agent-gateway.js', 'serve', '--config', configPath, '--log-level', 'silent'],
    /listening on/,
    'stderr',
    env,
  );
  return { url: /listening on (\S+)/.exec(child.line)?.[1] as string, child, stop: () => child.stop() };
}
