// The cost of governance on tools/call and tools/list (issue 41; goal: under 0.02 ms p50 added
// each for an allow-all CEL rule and for pinning). One gateway, workspaces over the same upstream:
// none, an allow-all CEL rule (`true`), a rule that reads arguments and principal, and the source
// pinned with every tool approved (its digests read from the gateway first, as an admin would). The
// same small echo call and tools/list through the 2026 face, interleaved rounds, median by
// throughput, p50 and ratio against none. End to end, loopback noise is larger than the goal, so the
// steps themselves are timed too, in this process: decideCall per call, and judging a listing's
// definitions (what pinning adds to a listing that was not cached). Never asserts.
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKey, principalFor } from '../../gateway/auth/index.js';
import { validateWorkspace } from '../../gateway/config/config-loader.js';
import type { CatalogTool } from '../../gateway/discovery/index.js';
import { ApprovedDefinitions, judgeDefinitions } from '../../gateway/discovery/tool-pins.js';
import { decideCall } from '../../gateway/governance/index.js';
import { startBenchGateway } from './bench-gateway.js';
import { startChild } from './child-process.js';
import { formatResult, runLoad, type LoadResult } from './load.js';
import { modernRequest, type RequestShape } from './mcp-shapes.js';
import { McpSourceSchema } from '../../gateway/config/index.js';
import type { Tool } from '@modelcontextprotocol/client';
import { medianByRate } from './medians.js';

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

const PINNED = 'pinned, all approved';

export async function mcpGovernanceBench(): Promise<void> {
  const durationMs = Number(process.env['BENCH_DURATION_MS'] ?? 2000);
  const rounds = Number(process.env['BENCH_ROUNDS'] ?? 5);
  console.log('\n== Governance on tools/call and tools/list: CEL policy and pinning (issue 41) ==');
  console.log(
    `conditions: Node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), loopback; one gateway process (logging and telemetry off), workspaces with and without governance over the same default v2-SDK upstream (tools/list ttlMs 0: every tools/list lists the upstream again, so pinning judges every listing); modern echo tools/call and tools/list at concurrency 1; ${durationMs} ms per point after a 300 ms warm-up, ${rounds} interleaved rounds, median by throughput`,
  );
  stepCost();
  const upstream = await startChild(['dist/test/bench/default-upstream-main.js'], /"url"/);
  const upstreamUrl = (JSON.parse(upstream.line) as { url: string }).url;
  const dir = await mkdtemp(join(tmpdir(), 'agw-governance-bench-'));
  const labels = ['none', ...Object.keys(RULES), PINNED];
  const keys = labels.map(() => generateKey());
  const source = { name: 'up', transport: 'streamable-http', url: upstreamUrl };
  const config = (approved: Record<string, string> | undefined) => ({
    workspaces: labels.map((label, index) => ({
      name: `w${index}`,
      mcpSources: [
        label === PINNED
          ? { ...source, pinning: { mode: approved === undefined ? 'warn' : 'pin', approved } }
          : source,
      ],
      keys: [{ id: keys[index]!.id, hash: keys[index]!.hash, access: 'write' }],
      ...(RULES[label] === undefined ? {} : { governance: { policies: RULES[label] } }),
    })),
  });
  // First the digests, as an admin reads them; then the gateway with all of them approved.
  const first = await startBenchGateway(dir, 'gateway', config(undefined));
  const approved = await offeredDigests(first.url, keys[labels.indexOf(PINNED)]!.key).finally(() =>
    first.stop(),
  );
  const gateway = await startBenchGateway(dir, 'gateway', config(approved));
  console.log(`  pinned workspace: ${Object.keys(approved).length} tools approved`);
  try {
    const url = `${gateway.url}/mcp`;
    for (const method of ['tools/call', 'tools/list'] as const) {
      const shapes = keys.map((key): RequestShape =>
        method === 'tools/call'
          ? modernRequest('tools/call', { name: 'up__echo', arguments: { text: 'hello' } }, 'up__echo', {
              authorization: `Bearer ${key.key}`,
            })
          : modernRequest('tools/list', {}, undefined, { authorization: `Bearer ${key.key}` }),
      );
      const results = labels.map((): LoadResult[] => []);
      for (let round = 0; round < rounds; round += 1)
        for (let turn = 0; turn < labels.length; turn += 1) {
          const index = (round + turn) % labels.length;
          const options = { concurrency: 1, ...shapes[index]! };
          await runLoad('warm-up', url, { ...options, durationMs: 300 });
          results[index]!.push(
            await runLoad(`${method} — ${labels[index]}`, url, { ...options, durationMs }),
          );
        }
      const base = medianByRate(results[0]!);
      for (const [index] of labels.entries()) {
        const result = medianByRate(results[index]!);
        const versus =
          index === 0
            ? ''
            : `  ${(result.rps / base.rps).toFixed(3)}x none, added p50 ${(result.p50Ms - base.p50Ms).toFixed(3)} ms`;
        console.log(`${formatResult(result)}${versus}  load ${loadavg()[0]?.toFixed(2) ?? '?'}`);
      }
    }
  } finally {
    await gateway.stop();
    await upstream.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/** The digests GET /agent/sources/up offers to approve. */
async function offeredDigests(gatewayUrl: string, key: string): Promise<Record<string, string>> {
  // The first read lists the source and judges it.
  await fetch(`${gatewayUrl}/agent/sources/up?response_format=json`, {
    headers: { authorization: `Bearer ${key}` },
  });
  const body = (await (
    await fetch(`${gatewayUrl}/agent/sources/up?response_format=json`, {
      headers: { authorization: `Bearer ${key}` },
    })
  ).json()) as { unapproved: { tool: string; digest: string }[] };
  return Object.fromEntries(body.unapproved.map((tool) => [tool.tool, tool.digest]));
}

/** p50 and p99 of `run` per call, in batches of 500 after a warm-up. */
function timed(run: () => void): { p50: number; p99: number } {
  for (let i = 0; i < 20_000; i += 1) run();
  const samples: number[] = [];
  for (let batch = 0; batch < 200; batch += 1) {
    const started = performance.now();
    for (let i = 0; i < 500; i += 1) run();
    samples.push((performance.now() - started) / 500);
  }
  samples.sort((a, b) => a - b);
  return { p50: samples[Math.floor(samples.length / 2)]!, p99: samples[Math.floor(samples.length * 0.99)]! };
}

/** The steps alone, in this process: decideCall per call; judging a listing under pin. */
function stepCost(): void {
  pinningStepCost();
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
    const { p50, p99 } = timed(() => decideCall(principal, tool, args));
    console.log(
      `  policy step alone — ${label.padEnd(15)} p50 ${(p50 * 1000).toFixed(2)} µs, p99 ${(p99 * 1000).toFixed(2)} µs per call (batches of 500)`,
    );
  }
}

/** Judging one listing of `count` tools like the bench upstream's under pin, all approved: the digest
 * of every definition. A listing the gateway reuses (cache or call floor) is judged once. */
function pinningStepCost(): void {
  const definition = (index: number): Tool => ({
    name: `tool_${index}`,
    description: `Does thing number ${index} with the given text and returns what it did, in a short sentence.`,
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'string', description: 'What to work on.' }, count: { type: 'number' } },
      required: ['text'],
    },
    annotations: { readOnlyHint: true },
  });
  for (const count of [1, 10, 100]) {
    const tools = Array.from({ length: count }, (_, index) => definition(index));
    const off = McpSourceSchema.parse({
      name: 'up',
      transport: 'streamable-http',
      url: 'http://127.0.0.1:1/mcp',
    });
    const approved = Object.fromEntries(
      judgeDefinitions(
        { ...off, pinning: { mode: 'warn', approved: {} } },
        tools,
        new ApprovedDefinitions(),
        'k',
      ).verdict.unapproved.map((tool) => [tool.tool, tool.digest]),
    );
    const pinned = { ...off, pinning: { mode: 'pin' as const, approved } };
    const memory = new ApprovedDefinitions();
    const { p50, p99 } = timed(() => judgeDefinitions(pinned, tools, memory, 'k'));
    console.log(
      `  pinning step alone — a listing of ${String(count).padStart(3)} tools, all approved: p50 ${(p50 * 1000).toFixed(2)} µs, p99 ${(p99 * 1000).toFixed(2)} µs per listing (${((p50 * 1000) / count).toFixed(2)} µs per tool)`,
    );
  }
}
