// The cost of CEL policy on tools/call (issue 41 part 3; goal: under 0.02 ms p50 added). One
// gateway, two workspaces over the same upstream: `plain` with no policy, `policy` with an
// allow-all rule (`true`) and, as a second point, with a rule that reads arguments and principal.
// The same small echo call through the 2026 face, interleaved rounds, median by throughput, p50
// and ratio against `plain`. End to end, loopback noise is larger than the goal, so the step
// itself (decideCall, in this process, on the same principal and tool) is timed too. Never asserts.
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKey, principalFor } from '../../gateway/auth/index.js';
import { validateWorkspace } from '../../gateway/config/config-loader.js';
import type { CatalogTool } from '../../gateway/discovery/index.js';
import { decideCall } from '../../gateway/governance/index.js';
import { startBenchGateway } from './bench-gateway.js';
import { startChild } from './child-process.js';
import { formatResult, runLoad, type LoadResult } from './load.js';
import { modernRequest } from './mcp-shapes.js';

const RULES: Record<string, readonly Record<string, unknown>[]> = {
  'allow-all rule': [{ name: 'allow-all', effect: 'allow', when: 'true', message: 'never' }],
  'argument rule': [
    {
      name: 'short-text',
      effect: 'allow',
      tools: ['up__*'],
      when: "principal.access == 'write' && size(args.text) < 1000 && !args.text.contains('DROP')",
      message: 'short texts only',
    },
  ],
};

function median(results: LoadResult[]): LoadResult {
  const sorted = [...results].sort((a, b) => a.rps - b.rps);
  return sorted[Math.floor(sorted.length / 2)] as LoadResult;
}

export async function mcpPolicyBench(): Promise<void> {
  const durationMs = Number(process.env['BENCH_DURATION_MS'] ?? 2000);
  const rounds = Number(process.env['BENCH_ROUNDS'] ?? 5);
  console.log('\n== CEL policy on tools/call (issue 41) ==');
  console.log(
    `conditions: Node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), loopback; one gateway process (logging and telemetry off), workspaces with and without the rule over the same default v2-SDK upstream; modern echo tools/call at concurrency 1; ${durationMs} ms per point after a 300 ms warm-up, ${rounds} interleaved rounds, median by throughput`,
  );
  stepCost();
  const upstream = await startChild(['dist/test/bench/default-upstream-main.js'], /"url"/);
  const upstreamUrl = (JSON.parse(upstream.line) as { url: string }).url;
  const dir = await mkdtemp(join(tmpdir(), 'agw-policy-bench-'));
  const labels = ['no rule', ...Object.keys(RULES)];
  const keys = labels.map(() => generateKey());
  const source = { name: 'up', transport: 'streamable-http', url: upstreamUrl };
  const gateway = await startBenchGateway(dir, 'gateway', {
    workspaces: labels.map((label, index) => ({
      name: `w${index}`,
      mcpSources: [source],
      keys: [{ id: keys[index]!.id, hash: keys[index]!.hash, access: 'write' }],
      ...(RULES[label] === undefined ? {} : { governance: { policies: RULES[label] } }),
    })),
  });
  try {
    const url = `${gateway.url}/mcp`;
    const shapes = keys.map((key) =>
      modernRequest('tools/call', { name: 'up__echo', arguments: { text: 'hello' } }, 'up__echo', {
        authorization: `Bearer ${key.key}`,
      }),
    );
    const results = labels.map((): LoadResult[] => []);
    for (let round = 0; round < rounds; round += 1)
      for (let turn = 0; turn < labels.length; turn += 1) {
        const index = (round + turn) % labels.length;
        const options = { concurrency: 1, ...shapes[index]! };
        await runLoad('warm-up', url, { ...options, durationMs: 300 });
        results[index]!.push(await runLoad(`tools/call — ${labels[index]}`, url, { ...options, durationMs }));
      }
    const base = median(results[0]!);
    for (const [index] of labels.entries()) {
      const result = median(results[index]!);
      const versus =
        index === 0
          ? ''
          : `  ${(result.rps / base.rps).toFixed(3)}x no rule, added p50 ${(result.p50Ms - base.p50Ms).toFixed(3)} ms`;
      console.log(`${formatResult(result)}${versus}  load ${loadavg()[0]?.toFixed(2) ?? '?'}`);
    }
  } finally {
    await gateway.stop();
    await upstream.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/** The policy step alone: decideCall per call, after warm-up, in this process. */
function stepCost(): void {
  const key = generateKey();
  const tool: CatalogTool = {
    name: 'up__echo',
    source: 'up',
    upstreamName: 'echo',
    description: 'echo',
    permission: 'read',
    inputSchema: { type: 'object' },
    annotations: { readOnlyHint: true },
    definition: { name: 'echo', inputSchema: { type: 'object' } },
  };
  const args = { text: 'hello' };
  for (const [label, rules] of [['no rule', []] as const, ...Object.entries(RULES)] as const) {
    const parsed = validateWorkspace({
      name: 'w',
      keys: [{ id: key.id, hash: key.hash, access: 'write' }],
      governance: { policies: rules },
    });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
    const principal = principalFor(parsed.workspace.keys[0]!, parsed.workspace);
    for (let i = 0; i < 50_000; i += 1) decideCall(principal, tool, args);
    const samples: number[] = [];
    for (let batch = 0; batch < 200; batch += 1) {
      const started = performance.now();
      for (let i = 0; i < 500; i += 1) decideCall(principal, tool, args);
      samples.push((performance.now() - started) / 500);
    }
    samples.sort((a, b) => a - b);
    const p50 = samples[Math.floor(samples.length / 2)]!;
    const p99 = samples[Math.floor(samples.length * 0.99)]!;
    console.log(
      `  policy step alone — ${label.padEnd(15)} p50 ${(p50 * 1000).toFixed(2)} µs, p99 ${(p99 * 1000).toFixed(2)} µs per call (batches of 500)`,
    );
  }
}
