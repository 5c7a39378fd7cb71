// Allocation per relayed call (issue 45): `npm run bench -- alloc`. A gateway (audit on, logging
// off, as the MCP benchmark runs it) in front of the default v2-SDK upstream, with the allocation
// probe preloaded (alloc-probe.ts) and a young generation large enough that no collection runs in a
// window. Per case: a warm-up, a collection, then N calls one after another; the growth of the used
// JS heap over them, divided by N, is the allocation per call (exact when no collection ran, which
// is checked and printed). A second window under V8's sampling heap profiler says where it went,
// by owner and by site. Numbers only; never asserts.
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { generateKey } from '../../gateway/auth/index.js';
import { freePort } from '../infra/free-port.js';
import { oneSourceConfig, startBenchGateway } from './bench-gateway.js';
import { startChild } from './child-process.js';
import { ownerOf } from './cpu-profile.js';
import { legacyRequest, modernRequest, type RequestShape } from './mcp-shapes.js';

const CALLS = Number(process.env['BENCH_ALLOC_CALLS'] ?? 2000);
const SEMI_SPACE_MB = 512;
const TOP = Number(process.env['BENCH_ALLOC_TOP'] ?? 12);

interface Site {
  readonly url: string;
  readonly functionName: string;
  readonly line: number;
  readonly bytes: number;
  readonly stack: readonly string[];
}

async function probe<T>(port: number, path: string): Promise<T> {
  const response = await request(`http://127.0.0.1:${port}${path}`);
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`probe ${path}: ${text}`);
  return JSON.parse(text) as T;
}

async function send(url: string, shape: RequestShape, count: number, dispatcher: Agent): Promise<number> {
  let failures = 0;
  for (let sequence = 1; sequence <= count; sequence += 1) {
    const response = await request(url, {
      dispatcher,
      method: 'POST',
      headers: shape.headers,
      body: shape.body(sequence),
    });
    const text = await response.body.text();
    if (response.statusCode !== 200 || text.includes('"error"') || text.includes('"isError":true'))
      failures += 1;
  }
  return failures;
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

/** A site as the probe names its callers: "function path:line". */
const frameOf = (site: Site) =>
  `${site.functionName || '(anonymous)'} ${site.url.replace(/^.*\/(dist|node_modules)\//, '')}:${site.line}`;

function printSites(sites: readonly Site[], calls: number): void {
  const total = sites.reduce((sum, site) => sum + site.bytes, 0);
  const byOwner = new Map<string, number>();
  const bySite = new Map<string, number>();
  for (const site of sites) {
    const owner = ownerOf(site.url, site.functionName);
    byOwner.set(owner, (byOwner.get(owner) ?? 0) + site.bytes);
    const where =
      site.url === ''
        ? owner
        : `${site.functionName || '(anonymous)'} ${ownerOf(site.url, '')}${site.url.slice(site.url.lastIndexOf('/'))}:${site.line}`;
    bySite.set(where, (bySite.get(where) ?? 0) + site.bytes);
  }
  const line = (bytes: number, name: string) =>
    `    ${((bytes / total) * 100).toFixed(1).padStart(5)} %  ${kib(bytes / calls).padStart(9)}/call  ${name}`;
  console.log(`  sampled: ${kib(total / calls)}/call in all; by owner:`);
  for (const [name, bytes] of [...byOwner].sort((a, b) => b[1] - a[1]).slice(0, TOP))
    console.log(line(bytes, name));
  console.log('  by site:');
  for (const [name, bytes] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, TOP))
    console.log(line(bytes, name));
  // What each of the gateway's functions allocates with all it calls (a site counted once per function).
  const inclusive = new Map<string, number>();
  for (const site of sites) {
    const here = frameOf(site);
    for (const frame of new Set([here, ...site.stack]))
      if (frame.includes(' gateway/')) inclusive.set(frame, (inclusive.get(frame) ?? 0) + site.bytes);
  }
  console.log("  inclusive, the gateway's functions:");
  for (const [name, bytes] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, TOP))
    console.log(line(bytes, name));
  // BENCH_ALLOC_STACKS=<text>: the heaviest call paths through frames that contain the text.
  const wanted = process.env['BENCH_ALLOC_STACKS'];
  if (wanted === undefined) return;
  const byStack = new Map<string, number>();
  for (const site of sites) {
    const here = frameOf(site);
    const frames = [here, ...site.stack];
    if (!frames.some((frame) => frame.includes(wanted))) continue;
    const key = frames.join('\n        <- ');
    byStack.set(key, (byStack.get(key) ?? 0) + site.bytes);
  }
  console.log(`  call paths through "${wanted}":`);
  for (const [stack, bytes] of [...byStack].sort((a, b) => b[1] - a[1]).slice(0, TOP))
    console.log(line(bytes, stack));
}

/** Allocation per call over one window: warm-up, a collection, CALLS calls, the used heap again. */
async function window(
  url: string,
  probePort: number,
  shape: RequestShape,
  dispatcher: Agent,
): Promise<{ text: string; note: string }> {
  await send(url, shape, 300, dispatcher);
  const before = await probe<{ usedHeap: number; collections: number }>(probePort, '/mark');
  const failures = await send(url, shape, CALLS, dispatcher);
  const after = await probe<{ usedHeap: number; collections: number }>(probePort, '/read');
  const collected = after.collections - before.collections;
  return {
    text: collected === 0 ? kib((after.usedHeap - before.usedHeap) / CALLS).padStart(10) : '   unknown',
    note: `${failures} failed, ${collected} collections in the window`,
  };
}

export async function allocBench(): Promise<void> {
  console.log('\n== Allocation per relayed call ==');
  console.log(
    `conditions: Node ${process.version}, ${cpus().length} CPUs, gateway with audit on (stderr), logging and telemetry off, --max-semi-space-size=${SEMI_SPACE_MB}; ${CALLS} calls one after another per window after 300 warm-up calls; allocation = growth of the used JS heap over the window ÷ calls (valid only with no collection in it); sites from V8's sampling heap profiler (1 KiB interval) in a second window`,
  );
  const only = process.env['ALLOC_CASE'];
  const key = generateKey();
  const auth = { authorization: `Bearer ${key.key}` };
  // The floor passes requests through untouched, so it is sent the upstream's own tool name.
  const call = (name: string) => ({ name, arguments: { text: 'hello' } });
  const cases = [
    {
      shape: 'tools/call, 2026 face',
      request: modernRequest('tools/call', call('up__echo'), 'up__echo', auth),
      floor: modernRequest('tools/call', call('echo'), 'echo'),
    },
    {
      shape: 'tools/call, 2025 face',
      request: legacyRequest('tools/call', call('up__echo'), auth),
      floor: legacyRequest('tools/call', call('echo')),
    },
    {
      shape: 'tools/list, 2026 face',
      request: modernRequest('tools/list', {}, undefined, auth),
      floor: modernRequest('tools/list', {}),
    },
  ];
  const dir = await mkdtemp(join(tmpdir(), 'agw-alloc-'));
  const upstream = await startChild(['dist/test/bench/default-upstream-main.js'], /"url"/);
  const upstreamUrl = (JSON.parse(upstream.line) as { url: string }).url;
  const probePort = await freePort();
  const gateway = await startBenchGateway(
    dir,
    'gateway',
    oneSourceConfig(upstreamUrl, key),
    { ...process.env, AGW_ALLOC_PROBE_PORT: String(probePort) },
    [
      '--expose-gc',
      `--max-semi-space-size=${SEMI_SPACE_MB}`,
      `--min-semi-space-size=${SEMI_SPACE_MB}`,
      '--import',
      './dist/test/bench/alloc-probe.js',
    ],
  );
  const dispatcher = new Agent({ connections: 1, pipelining: 1 });
  // The floors (bare-relay-main.ts): fastify + undici, and node:http + undici's dispatch.
  const startFloor = async (extra: string[]) => {
    const probe = await freePort();
    const child = await startChild(
      [
        '--expose-gc',
        `--max-semi-space-size=${SEMI_SPACE_MB}`,
        `--min-semi-space-size=${SEMI_SPACE_MB}`,
        '--import',
        './dist/test/bench/alloc-probe.js',
        'dist/test/bench/bare-relay-main.js',
        upstreamUrl,
        ...extra,
      ],
      /listening on/,
      'stderr',
      { ...process.env, AGW_ALLOC_PROBE_PORT: String(probe) },
    );
    return { child, probe, url: `${/listening on (\S+)/.exec(child.line)?.[1] ?? ''}/mcp` };
  };
  const floor = await startFloor([]);
  const nodeFloor = await startFloor(['--node-http']);
  try {
    const url = `${gateway.url}/mcp`;
    for (const benchCase of cases.filter((c) => only === undefined || c.shape.startsWith(only))) {
      const floorBytes = await window(floor.url, floor.probe, benchCase.floor, dispatcher);
      const nodeFloorBytes = await window(nodeFloor.url, nodeFloor.probe, benchCase.floor, dispatcher);
      const bytes = await window(url, probePort, benchCase.request, dispatcher);
      console.log(
        `\n${benchCase.shape.padEnd(24)} ${bytes.text}/call  (${CALLS} calls, ${bytes.note}); the floor (fastify + undici passing bytes through, no gateway) ${floorBytes.text}/call (${floorBytes.note}); node:http + undici dispatch ${nodeFloorBytes.text}/call (${nodeFloorBytes.note})`,
      );
      await probe(probePort, '/sample/start');
      await send(url, benchCase.request, CALLS, dispatcher);
      const { sites } = await probe<{ sites: Site[] }>(probePort, '/sample/stop');
      printSites(sites, CALLS);
    }
  } finally {
    await dispatcher.close();
    await floor.child.stop();
    await nodeFloor.child.stop();
    await gateway.stop();
    await upstream.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
