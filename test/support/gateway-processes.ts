// Real `agent-gateway serve` processes on one config file (replicas), each on its own port.
import { startChild, type Child } from '../bench/child-process.js';

export interface GatewayProcess {
  readonly child: Child;
  readonly url: string;
}

export async function startGatewayProcesses(
  configPath: string,
  count: number,
  env: NodeJS.ProcessEnv = process.env,
): Promise<GatewayProcess[]> {
  const started: GatewayProcess[] = [];
  for (let i = 0; i < count; i += 1) {
    const child = await startChild(
      ['bin/agent-gateway.js', 'serve', '--config', configPath, '--log-level', 'warn'],
      /listening on/,
      'stderr',
      env,
    );
    started.push({ child, url: /listening on (\S+)/.exec(child.line)?.[1] as string });
  }
  return started;
}
