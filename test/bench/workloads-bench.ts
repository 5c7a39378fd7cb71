// `npm run bench -- workloads` (issue 40): runs test/bench/workloads-on-a-node.run.ts with vitest on
// the pod tests' one-node cluster (vitest.workloads-bench.config.ts; root, like the pod tests) and
// prints its `[bench]` lines: cold start from zero, call overhead through a workload pod versus the
// same server as a local stdio child, and the memory of one workload pod. Never asserts.
import { spawn } from 'node:child_process';

export async function workloadsBench(): Promise<void> {
  console.log('\n== MCP servers as workloads (McpSource spec.run) on the one-node cluster');
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn('npx', ['vitest', 'run', '-c', 'vitest.workloads-bench.config.ts'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let buffered = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const parts = buffered.split('\n');
      buffered = parts.pop() ?? '';
      for (const line of parts)
        if (line.startsWith('[bench] ') || line.startsWith('[cluster] '))
          console.log(`  ${line.slice(line.indexOf(' ') + 1)}`);
    });
    child.on('exit', resolve);
  });
  if (code !== 0) console.log(`  (the workloads bench exited ${code}: numbers above are partial)`);
}
