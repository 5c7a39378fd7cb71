// Tracing cost benchmark (issue 12). Prints numbers and conditions; never asserts.
// Three gateway processes on one config: telemetry off, on with 100 % sampling, on with 1 %
// sampling (parent-based ratio), exporting OTLP/HTTP (protobuf) to a local sink that accepts and
// discards, Prometheus exposition on. tools/call (relayed to a local modern upstream) and
// /agent/search at concurrency 1 and 32; each point runs the three modes back to back, over
// `BENCH_ROUNDS` interleaved rounds (each starting with the next mode; median kept), and prints
// throughput against "off" and the gateway's CPU time per request against "off" (read from /proc:
// steadier than throughput on a machine whose speed varies, and what throughput costs once the
// gateway is the bottleneck).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKey } from '../../gateway/auth/index.js';
import { freePort } from '../infra/free-port.js';
import { startBenchGateway, type BenchGateway } from './bench-gateway.js';
import { startChild } from './child-process.js';
import { modernRequest } from './mcp-shapes.js';
import { formatResult, runLoad, type LoadResult } from './load.js';
import { processCpuMs } from './process-stats.js';
import { medianByRate, middle } from './medians.js';

const MODES = [
  { label: 'off', env: { OTEL_SDK_DISABLED: 'true' } },
  { label: 'on, 100 %', env: { OTEL_SDK_DISABLED: 'false', OTEL_TRACES_SAMPLER: 'parentbased_always_on' } },
  {
    label: 'on, 1 %',
    env: {
      OTEL_SDK_DISABLED: 'false',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.01',
    },
  },
] as const;

/** The median of the per-round CPU costs (undefined without /proc). */
export async function otelBench(): Promise<void> {
  const durationMs = Number(process.env['BENCH_DURATION_MS'] ?? 3000);
  const rounds = Number(process.env['BENCH_ROUNDS'] ?? 3);
  console.log('\n== Tracing cost benchmark ==');
  console.log(
    `conditions: Node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), loopback; gateway, upstream, OTLP sink and load generator share the machine; ${durationMs} ms per point, ${rounds} interleaved rounds (median by throughput)`,
  );
  let spansBytes = 0;
  const sink = createServer((request, response) => {
    request.on('data', (chunk: Buffer) => (spansBytes += chunk.length));
    request.on('end', () => response.writeHead(200).end());
  });
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  const sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
  const upstream = await startChild(['dist/test/bench/modern-upstream-main.js'], /"url"/);
  const upstreamUrl = (JSON.parse(upstream.line) as { url: string }).url;
  const dir = await mkdtemp(join(tmpdir(), 'agw-otel-bench-'));
  const docs = join(dir, 'docs');
  await mkdir(docs, { recursive: true });
  for (let i = 0; i < 200; i += 1)
    await writeFile(
      join(docs, `note-${i}.md`),
      `# Note ${i}\n\nThe rotation schedule for team ${i % 17} covers on-call, reviews and the release train.\n`,
    );
  const key = generateKey();
  const config = {
    workspaces: [
      {
        name: 'bench',
        mcpSources: [{ name: 'up', transport: 'streamable-http', url: upstreamUrl }],
        dataSources: [{ name: 'docs', type: 'files', path: docs }],
        keys: [{ id: key.id, hash: key.hash, access: 'write' }],
      },
    ],
  };
  const gateways: BenchGateway[] = [];
  try {
    for (const [index, mode] of MODES.entries())
      gateways.push(
        await startBenchGateway(dir, `gateway-${index}`, config, {
          ...process.env,
          ...mode.env,
          OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl,
          OTEL_EXPORTER_PROMETHEUS_PORT: String(await freePort()),
        }),
      );
    const urls = gateways.map((gateway) => gateway.url);
    // Let every gateway index the notes before measuring search.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const points = [
      {
        label: 'tools/call echo',
        path: '/mcp',
        ...modernRequest('tools/call', { name: 'up__echo', arguments: { text: 'hi' } }, 'up__echo', {
          authorization: `Bearer ${key.key}`,
        }),
      },
      {
        label: '/agent/search',
        path: '/agent/search',
        method: 'POST' as const,
        body: JSON.stringify({ query: 'rotation schedule reviews', limit: 5 }),
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key.key}` },
      },
    ];
    for (const point of points)
      for (const concurrency of [1, 32]) {
        const byMode: LoadResult[][] = MODES.map(() => []);
        const cpuByMode: number[][] = MODES.map(() => []);
        for (let round = 0; round < rounds; round += 1)
          // Each round starts with the next mode, so no mode always runs first (coldest).
          for (let turn = 0; turn < MODES.length; turn += 1) {
            const index = (round + turn) % MODES.length;
            const mode = MODES[index] as (typeof MODES)[number];
            const url = `${urls[index] as string}${point.path}`;
            const pid = gateways[index]?.child.process.pid;
            await runLoad('warm-up', url, { concurrency, durationMs: 300, ...point });
            const cpuBefore = await processCpuMs(pid);
            const result = await runLoad(`${point.label}, ${mode.label}`, url, {
              concurrency,
              durationMs,
              ...point,
            });
            const cpuAfter = await processCpuMs(pid);
            byMode[index]?.push(result);
            if (cpuBefore !== undefined && cpuAfter !== undefined && result.requests > 0)
              cpuByMode[index]?.push(((cpuAfter - cpuBefore) * 1000) / result.requests);
          }
        const off = medianByRate(byMode[0] as LoadResult[]);
        const offCpu = middle(cpuByMode[0] as number[]);
        for (const [index] of MODES.entries()) {
          const result = medianByRate(byMode[index] as LoadResult[]);
          const cpu = middle(cpuByMode[index] as number[]);
          const cpuText =
            cpu === undefined || offCpu === undefined
              ? ''
              : `, gateway CPU ${cpu.toFixed(0)} µs/req (${(cpu / offCpu).toFixed(2)}x off)`;
          console.log(
            `${formatResult(result)}  throughput ${(result.rps / off.rps).toFixed(2)}x off, p50 ${result.p50Ms - off.p50Ms >= 0 ? '+' : ''}${(result.p50Ms - off.p50Ms).toFixed(2)} ms${cpuText}`,
          );
        }
        console.log(
          `  load average ${loadavg()
            .map((v) => v.toFixed(2))
            .join(' ')}`,
        );
      }
    console.log(`OTLP bytes received by the sink: ${(spansBytes / 1024 / 1024).toFixed(1)} MiB`);
  } finally {
    await Promise.all(gateways.map((g) => g.stop()));
    await upstream.stop();
    await new Promise((resolve) => sink.close(resolve));
    await rm(dir, { recursive: true, force: true });
  }
}
