// `npm run bench -- cluster`: the pod tests' numbers (issue 21) with their conditions. Builds the
// test cluster's parts (timed: cold when ~/.cache/kube-test-env and ~/.cache/agw-cluster are empty),
// then runs test/e2e/cluster on it and prints what it measured: warm start to a Ready node, `helm
// install` to all pods Ready (default and HA values), and each churn case's failed requests and
// latency against the steady run of the same pass. Needs root (it starts a node).
import { execFileSync, spawn } from 'node:child_process';
import { cpus, release } from 'node:os';

function sh(command: string, args: readonly string[]): string {
  try {
    return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  } catch {
    return 'unknown';
  }
}

export async function clusterBench(): Promise<void> {
  console.log('\n== Pod tests: the chart on a one-node cluster (test/infra/kube-cluster.sh)');
  console.log(
    `conditions: ${cpus().length} cores, kernel ${release()}, cgroup ${sh('stat', ['-fc', '%T', '/sys/fs/cgroup'])}, ` +
      `${sh('containerd', ['--version']).split(' ').slice(0, 3).join(' ')}, load: 4 keep-alive loops (REST + /mcp)`,
  );
  const t0 = Date.now();
  sh('bash', ['test/infra/kube-cluster.sh', 'build']);
  console.log(
    `cluster parts and images: build step ${((Date.now() - t0) / 1000).toFixed(1)} s (0-2 s when cached)`,
  );
  const lines: string[] = [];
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn('npx', ['vitest', 'run', '-c', 'vitest.cluster.config.ts'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let buffered = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const parts = buffered.split('\n');
      buffered = parts.pop() ?? '';
      for (const line of parts)
        if (line.startsWith('[cluster] ') && !line.includes('summary')) lines.push(line.slice(10));
    });
    child.on('exit', resolve);
  });
  for (const line of lines) console.log(`  ${line}`);
  if (code !== 0) console.log(`  (the pod tests exited ${code}: numbers above are partial)`);
}
