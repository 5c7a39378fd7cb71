// MCP proxy benchmark (issues 3 and 13), side by side in one run: the same small `tools/call` (echo)
// and `tools/list` sent to the upstream directly, through nginx as a pure reverse proxy, through
// Agent Gateway (its 2026-07-28 face and its 2025-era face), through ToolHive's vMCP and through
// agentgateway (the Rust gateway, both of its faces), and through two floors (`bare-relay-main.ts`):
// our own stack passing bytes (fastify + undici) and the least Node allows (node:http + undici's
// dispatch), at concurrency 1 and 32 on loopback. Two upstreams, one after the other: a default v2-SDK server
// (no cache hints, tools/list says `ttlMs: 0`) and the same server with `ttlMs` 60 s on tools/list.
// Participants are interleaved within each of `BENCH_ROUNDS` rounds, each round starting with the
// next one, and the median by throughput is kept. Prints req/s, p50, p99, ratios and added latency over direct, each proxy's own CPU time
// per request (user + system of the process and its direct children from /proc, 10 ms ticks), the machine load with every
// point, and each proxy's RSS before and after the load. A peer that cannot run is skipped with the
// reason printed. Never asserts. `BENCH_MCP_QUICK=1` measures only `tools/call` through the default
// upstream, direct, the floors and Agent Gateway (for trying a change; the peers are left out).
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKey } from '../../gateway/auth/index.js';
import { oneSourceConfig, startBenchGateway } from './bench-gateway.js';
import { startChild } from './child-process.js';
import { formatResult, runLoad, type LoadResult } from './load.js';
import { legacyRequest, modernRequest, type RequestShape } from './mcp-shapes.js';
import { AGENTGATEWAY_ECHO, startAgentgateway } from './agentgateway-peer.js';
import { startNginx } from './nginx-peer.js';
import { processTreeCpuMs, processTreeRssMiB } from './process-stats.js';
import { startVmcp } from './vmcp-peer.js';
import { medianByRate } from './medians.js';

interface Participant {
  readonly label: string;
  readonly url: string;
  /** The process whose memory is reported (none for the upstream itself). */
  readonly pid: number | undefined;
  readonly call: RequestShape;
  readonly list: RequestShape;
}

const UPSTREAMS = [
  { label: 'default v2-SDK upstream (no cache hints: tools/list ttlMs 0)', args: [] as string[] },
  { label: 'v2-SDK upstream with cache hints (tools/list ttlMs 60 s)', args: ['--ttl-ms', '60000'] },
];

const POINTS = [
  { label: 'tools/call', shape: 'call', concurrency: 1 },
  { label: 'tools/call', shape: 'call', concurrency: 32 },
  { label: 'tools/list', shape: 'list', concurrency: 1 },
  { label: 'tools/list', shape: 'list', concurrency: 32 },
] as const;

const QUICK = process.env['BENCH_MCP_QUICK'] === '1';

/** A load result with the proxy's own CPU time per request over that run (user + system, from /proc). */
interface Measured extends LoadResult {
  readonly cpuMsPerRequest: number | undefined;
}

const signed = (value: number) => `${value >= 0 ? '+' : ''}${value.toFixed(2)}`;
const mib = (value: number | undefined) => (value === undefined ? 'n/a' : `${value.toFixed(0)} MiB`);

export async function mcpProxyBench(): Promise<void> {
  const durationMs = Number(process.env['BENCH_DURATION_MS'] ?? 2000);
  const rounds = Number(process.env['BENCH_ROUNDS'] ?? 3);
  console.log('\n== MCP proxy benchmark, side by side ==');
  console.log(
    `conditions: Node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), loopback; upstream, each proxy and the load generator (this process) are separate processes on one machine; Agent Gateway logging off, telemetry off; ${durationMs} ms per point after a 300 ms warm-up, ${rounds} interleaved rounds, median by throughput; load = 1-minute load average when the point ended`,
  );
  for (const upstreamKind of QUICK ? UPSTREAMS.slice(0, 1) : UPSTREAMS)
    await benchOneUpstream(upstreamKind, durationMs, rounds);
}

async function benchOneUpstream(
  upstreamKind: (typeof UPSTREAMS)[number],
  durationMs: number,
  rounds: number,
): Promise<void> {
  console.log(`\n-- ${upstreamKind.label} --`);
  const upstream = await startChild(
    ['dist/test/bench/default-upstream-main.js', ...upstreamKind.args],
    /"url"/,
  );
  const upstreamUrl = (JSON.parse(upstream.line) as { url: string }).url;
  const dir = await mkdtemp(join(tmpdir(), 'agw-mcp-bench-'));
  const key = generateKey();
  const auth = { authorization: `Bearer ${key.key}` };
  const peers: { stop(): Promise<void> }[] = [];
  try {
    const gateway = await startBenchGateway(dir, 'gateway', oneSourceConfig(upstreamUrl, key));
    peers.push(gateway);
    const participants: Participant[] = [
      {
        label: 'direct',
        url: upstreamUrl,
        pid: undefined,
        call: modernRequest('tools/call', { name: 'echo', arguments: { text: 'hello' } }, 'echo'),
        list: modernRequest('tools/list', {}),
      },
    ];
    const nginx = QUICK ? 'left out (BENCH_MCP_QUICK)' : await startNginx(upstreamUrl);
    if (typeof nginx === 'string') console.log(`  nginx skipped: ${nginx}`);
    else {
      peers.push(nginx);
      participants.push({
        ...(participants[0] as Participant),
        label: 'nginx',
        url: nginx.url,
        pid: nginx.pid,
      });
    }
    // The floors: the design card's own stack (fastify and undici passing the bytes through) and the
    // least Node itself allows (node:http and undici's dispatch), with no auth, parsing, policy or
    // audit. What the gateway adds beyond the first is the gateway's own cost; the second bounds any
    // relay written for Node.
    for (const [label, extra] of [
      ['floor: fastify + undici', []],
      ['floor: node:http + undici dispatch', ['--node-http']],
    ] as const) {
      const floor = await startChild(
        ['dist/test/bench/bare-relay-main.js', upstreamUrl, ...extra],
        /listening on/,
        'stderr',
      );
      peers.push(floor);
      participants.push({
        ...(participants[0] as Participant),
        label,
        url: `${/listening on (\S+)/.exec(floor.line)?.[1] ?? ''}/mcp`,
        pid: floor.process.pid,
      });
    }
    const gatewayMcp = `${gateway.url}/mcp`;
    participants.push(
      {
        label: 'Agent Gateway, 2026 face',
        url: gatewayMcp,
        pid: gateway.child.process.pid,
        call: modernRequest(
          'tools/call',
          { name: 'up__echo', arguments: { text: 'hello' } },
          'up__echo',
          auth,
        ),
        list: modernRequest('tools/list', {}, undefined, auth),
      },
      {
        label: 'Agent Gateway, 2025 face',
        url: gatewayMcp,
        pid: gateway.child.process.pid,
        call: legacyRequest('tools/call', { name: 'up__echo', arguments: { text: 'hello' } }, auth),
        list: legacyRequest('tools/list', {}, auth),
      },
    );
    const vmcp = QUICK
      ? 'left out (BENCH_MCP_QUICK)'
      : await startVmcp(upstreamUrl).catch((error: unknown) => `vmcp failed: ${String(error)}`);
    if (typeof vmcp === 'string') console.log(`  ToolHive vMCP skipped: ${vmcp}`);
    else {
      peers.push(vmcp);
      participants.push({
        label: 'ToolHive vMCP v0.47.0',
        url: vmcp.url,
        pid: vmcp.pid,
        call: legacyRequest(
          'tools/call',
          { name: 'up_echo', arguments: { text: 'hello' } },
          {},
          vmcp.sessionId,
        ),
        list: legacyRequest('tools/list', {}, {}, vmcp.sessionId),
      });
    }
    const agentgateway = QUICK
      ? 'left out (BENCH_MCP_QUICK)'
      : await startAgentgateway(upstreamUrl).catch(
          (error: unknown) => `agentgateway failed: ${String(error)}`,
        );
    if (typeof agentgateway === 'string') console.log(`  agentgateway skipped: ${agentgateway}`);
    else {
      peers.push(agentgateway);
      console.log(
        `  agentgateway ${agentgateway.version}: tools/call relayed in a 2025-06-18 session${agentgateway.modernFace ? ' and statelessly at 2026-07-28' : '; its 2026 face is not measured: it refused a 2026-07-28 tools/call'}`,
      );
      const echo = { name: AGENTGATEWAY_ECHO, arguments: { text: 'hello' } };
      if (agentgateway.modernFace)
        participants.push({
          label: 'agentgateway, 2026 face',
          url: agentgateway.url,
          pid: agentgateway.pid,
          call: modernRequest('tools/call', echo, AGENTGATEWAY_ECHO),
          list: modernRequest('tools/list', {}),
        });
      participants.push({
        label: 'agentgateway, 2025 face',
        url: agentgateway.url,
        pid: agentgateway.pid,
        call: legacyRequest('tools/call', echo, {}, agentgateway.sessionId),
        list: legacyRequest('tools/list', {}, {}, agentgateway.sessionId),
      });
    }
    const rssBefore = new Map<string, number | undefined>();
    for (const participant of participants)
      rssBefore.set(participant.label, await processTreeRssMiB(participant.pid));
    const direct = participants[0] as Participant;
    for (const point of QUICK ? POINTS.slice(0, 2) : POINTS) {
      const results = participants.map((): Measured[] => []);
      for (let round = 0; round < rounds; round += 1)
        // Each round starts with the next participant: whoever runs first after the others have
        // kept the machine busy starts colder (measured ~0.5 ms of p50 at c=1), so nobody always does.
        for (let turn = 0; turn < participants.length; turn += 1) {
          const index = (round + turn) % participants.length;
          const participant = participants[index] as Participant;
          const shape = participant[point.shape];
          const options = { concurrency: point.concurrency, ...shape };
          await runLoad('warm-up', participant.url, { ...options, durationMs: 300 });
          const cpuBefore = await processTreeCpuMs(participant.pid);
          const result = await runLoad(`${point.label} — ${participant.label}`, participant.url, {
            ...options,
            durationMs,
          });
          const cpuAfter = await processTreeCpuMs(participant.pid);
          results[index]?.push({
            ...result,
            cpuMsPerRequest:
              cpuBefore === undefined || cpuAfter === undefined
                ? undefined
                : (cpuAfter - cpuBefore) / Math.max(1, result.requests),
          });
        }
      const load = loadavg()[0]?.toFixed(2) ?? '?';
      const base = medianByRate(results[0] as Measured[]);
      for (const [index, participant] of participants.entries()) {
        const result = medianByRate(results[index] as Measured[]);
        const versus =
          participant === direct
            ? ''
            : `  ${(result.rps / base.rps).toFixed(2)}x direct, added p50 ${signed(result.p50Ms - base.p50Ms)} ms p99 ${signed(result.p99Ms - base.p99Ms)} ms`;
        const cpu =
          result.cpuMsPerRequest === undefined
            ? ''
            : `  cpu ${(result.cpuMsPerRequest * 1000).toFixed(0)} µs/req`;
        console.log(`${formatResult(result)}${versus}${cpu}  load ${load}`);
      }
    }
    console.log('  RSS before → after the load:');
    for (const participant of participants.slice(1)) {
      const after = await processTreeRssMiB(participant.pid);
      console.log(
        `    ${participant.label.padEnd(26)} ${mib(rssBefore.get(participant.label))} → ${mib(after)}`,
      );
    }
  } finally {
    await Promise.all(peers.map((peer) => peer.stop()));
    await upstream.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
