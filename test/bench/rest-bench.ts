// Benchmark of the foundation's hot path: key verification and the REST agent endpoints on
// loopback, each against a baseline measured in the same run (an open /healthz for HTTP, a bare
// SHA-256 for the key check), printed with the conditions.
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { authenticate, generateKey } from '../../gateway/auth/index.js';
import { validateConfig } from '../../gateway/config/index.js';
import { startGateway } from '../../gateway/main.js';
import { createPinoLogger } from '../../gateway/telemetry/index.js';
import { writeGatewayConfig } from './bench-gateway.js';
import { formatResult, runLoad } from './load.js';

function keyCheckBench(): void {
  const keys = Array.from({ length: 1000 }, () => generateKey());
  const parsed = validateConfig({
    version: 1,
    workspaces: [{ name: 'bench', keys: keys.map((k) => ({ id: k.id, hash: k.hash })) }],
  });
  if (!parsed.ok) throw new Error('bench config invalid');
  const config = parsed.config;
  const header = `Bearer ${keys[500]!.key}`;
  const now = new Date();
  const iterations = 200_000;
  authenticate(header, config, now);
  let t = performance.now();
  for (let i = 0; i < iterations; i += 1) authenticate(header, config, now);
  const authNs = ((performance.now() - t) * 1e6) / iterations;
  t = performance.now();
  for (let i = 0; i < iterations; i += 1) createHash('sha256').update(keys[500]!.key).digest();
  const hashNs = ((performance.now() - t) * 1e6) / iterations;
  console.log(
    `key check (1,000 keys in config)      ${authNs.toFixed(0)} ns/op   baseline bare SHA-256 ${hashNs.toFixed(0)} ns/op   ratio ${(authNs / hashNs).toFixed(2)}x`,
  );
}

async function httpBench(durationMs: number): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'agw-bench-'));
  const key = generateKey();
  const configPath = await writeGatewayConfig(dir, {
    workspaces: [
      {
        name: 'bench',
        mcpSources: [
          {
            name: 'demo',
            transport: 'stdio',
            command: process.execPath,
            args: [resolve('dist/examples/demo-mcp-server/main.js')],
          },
        ],
        keys: [{ id: key.id, hash: key.hash }],
      },
    ],
  });
  const gateway = await startGateway({ configPath, logger: createPinoLogger({ level: 'silent' }), env: {} });
  const auth = { authorization: `Bearer ${key.key}` };
  try {
    await runLoad('warm-up', `${gateway.url}/agent/tools`, {
      concurrency: 4,
      durationMs: 500,
      headers: auth,
    });
    for (const concurrency of [1, 32]) {
      const base = await runLoad('baseline GET /healthz (no auth)', `${gateway.url}/healthz`, {
        concurrency,
        durationMs,
      });
      const tools = await runLoad('GET /agent/tools (TOON)', `${gateway.url}/agent/tools`, {
        concurrency,
        durationMs,
        headers: auth,
      });
      const json = await runLoad(
        'GET /agent/tools (JSON)',
        `${gateway.url}/agent/tools?response_format=json`,
        { concurrency, durationMs, headers: auth },
      );
      const sources = await runLoad('GET /agent/sources', `${gateway.url}/agent/sources`, {
        concurrency,
        durationMs,
        headers: auth,
      });
      for (const r of [base, tools, json, sources]) console.log(formatResult(r));
      for (const r of [tools, json, sources])
        console.log(
          `  ${r.label} / baseline: throughput ${(r.rps / base.rps).toFixed(2)}x, p50 ${(r.p50Ms / base.p50Ms).toFixed(2)}x`,
        );
    }
  } finally {
    await gateway.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

export async function restBench(): Promise<void> {
  const durationMs = Number(process.env['BENCH_DURATION_MS'] ?? 3000);
  console.log('== REST foundation benchmark ==');
  console.log(
    `conditions: Node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), loopback, load generator in the same process, ${durationMs} ms per point, logging off`,
  );
  keyCheckBench();
  await httpBench(durationMs);
}
