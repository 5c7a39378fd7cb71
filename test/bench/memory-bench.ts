// Memory benchmark (issue 26): resident memory and V8 heap of each kind of process, idle and after a
// c=32 load, side by side with ToolHive's vMCP and agentgateway in the same run:
//  1. the embedded gateway with a minimal config (one workspace, one key, no sources): start-up to
//     ready, idle, after c=32 `tools/list` on /mcp;
//  2. the README's example config (the demo MCP server over stdio, this repository's docs indexed):
//     idle, after c=32 `tools/call` of the demo echo tool;
//  3. the gateway, vMCP and agentgateway in front of the same HTTP upstream, after c=32
//     `tools/call` echo (each peer skipped with the reason when it cannot run);
//  4. `serve --kubernetes` with 100 workspaces and 20,000 keys (rendered objects written straight to
//     a real kube-apiserver), idle and after c=32 `GET /agent/tools` with keys of every workspace;
//  5. the operator, idle and after reconciling 100 Workspaces and 1,000 ApiKeys.
// Idle = 2 s after ready (or after the config is loaded). `BENCH_MEMORY_PART=<minimal | readme | peers
// | kubernetes | operator>` runs one part. Prints numbers and conditions; never asserts.
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { generateKey, type GeneratedKey } from '../../gateway/auth/index.js';
import { renderWorkspace } from '../../gateway/config/kube/index.js';
import { startControlPlane } from '../infra/control-plane.js';
import { asObjects, Cluster, until } from './bench-cluster.js';
import { oneSourceConfig, startBenchGateway } from './bench-gateway.js';
import { startChild } from './child-process.js';
import { runLoad, formatResult } from './load.js';
import { legacyRequest, modernRequest, type RequestShape } from './mcp-shapes.js';
import { formatSample, heapReporting, sampleMemory, type MemorySample } from './memory-sample.js';
import { AGENTGATEWAY_ECHO, startAgentgateway } from './agentgateway-peer.js';
import { startVmcp } from './vmcp-peer.js';

const LOAD_MS = Number(process.env['BENCH_DURATION_MS'] ?? 10_000);

/** The Node flags each process runs with where users run it: `npm start` (package.json) for the
 * embedded gateway, the chart's `gateway.nodeOptions` and `operator.nodeOptions` (values.yaml). */
interface DeployedFlags {
  readonly embedded: readonly string[];
  readonly gateway: readonly string[];
  readonly operator: readonly string[];
}

async function deployedFlags(): Promise<DeployedFlags> {
  const start = (JSON.parse(await readFile('package.json', 'utf8')) as { scripts: { start: string } }).scripts
    .start;
  const embedded = /\bnode ((?:--\S+ )*)bin\/agent-gateway\.js/.exec(start)?.[1] ?? '';
  const values = parse(await readFile('charts/agent-gateway/values.yaml', 'utf8')) as {
    gateway: { nodeOptions?: string };
    operator: { nodeOptions?: string };
  };
  const split = (text: string | undefined) => (text ?? '').split(' ').filter((flag) => flag !== '');
  return {
    embedded: split(embedded),
    gateway: split(values.gateway.nodeOptions),
    operator: split(values.operator.nodeOptions),
  };
}
const settle = (ms = 2000) => new Promise((resolve) => setTimeout(resolve, ms));

function line(label: string, idle: MemorySample, loaded: MemorySample): void {
  const ratio =
    idle.rssMiB === undefined || loaded.rssMiB === undefined
      ? ''
      : `  (${(loaded.rssMiB / idle.rssMiB).toFixed(2)}× idle)`;
  console.log(
    `  ${label.padEnd(34)} idle ${formatSample(idle)} → after load ${formatSample(loaded)}${ratio}`,
  );
}

async function loadWith(url: string, shape: RequestShape, label: string): Promise<void> {
  await runLoad('warm-up', url, { concurrency: 32, durationMs: 300, ...shape });
  const result = await runLoad(label, url, { concurrency: 32, durationMs: LOAD_MS, ...shape });
  console.log(`    load: ${formatResult(result)}`);
}

async function readyAfter(url: string, started: number): Promise<number> {
  await until(async () => (await fetch(`${url}/readyz`)).ok, 60_000, 5);
  return performance.now() - started;
}

async function minimalEmbedded(dir: string, key: GeneratedKey, flags: readonly string[]): Promise<void> {
  const reporting = heapReporting(dir, 'minimal');
  const started = performance.now();
  const gateway = await startBenchGateway(
    dir,
    'minimal',
    { workspaces: [{ name: 'w', keys: [{ id: key.id, hash: key.hash, access: 'write' }] }] },
    reporting.env,
    [...flags, ...reporting.nodeArgs],
  );
  try {
    const ready = await readyAfter(gateway.url, started);
    await settle();
    const pid = gateway.child.process.pid;
    const idle = await sampleMemory(pid, reporting);
    await loadWith(
      `${gateway.url}/mcp`,
      modernRequest('tools/list', {}, undefined, { authorization: `Bearer ${key.key}` }),
      'tools/list, minimal config',
    );
    await settle(1000);
    line('embedded, minimal config', idle, await sampleMemory(pid, reporting));
    console.log(`    start-up to ready (spawn → /readyz 200): ${ready.toFixed(0)} ms`);
  } finally {
    await gateway.stop();
  }
}

async function readmeExample(dir: string, key: GeneratedKey, flags: readonly string[]): Promise<void> {
  const example = parse(await readFile('examples/embedded.yaml', 'utf8')) as Record<string, unknown> & {
    workspaces: Record<string, unknown>[];
    knowledge: Record<string, unknown>;
  };
  const workspace = example.workspaces[0] as Record<string, unknown>;
  const reporting = heapReporting(dir, 'readme');
  const started = performance.now();
  const gateway = await startBenchGateway(
    dir,
    'readme',
    {
      knowledge: { ...example.knowledge, sqlitePath: join(dir, 'knowledge.sqlite') },
      workspaces: [{ ...workspace, keys: [{ id: key.id, hash: key.hash, access: 'write' }] }],
    },
    reporting.env,
    [...flags, ...reporting.nodeArgs],
  );
  try {
    const ready = await readyAfter(gateway.url, started);
    const auth = { authorization: `Bearer ${key.key}` };
    // Idle once the docs are indexed (the first sync runs after ready).
    await until(
      async () => {
        const sources = await fetch(`${gateway.url}/agent/sources?response_format=json`, { headers: auth });
        const body = (await sources.json()) as { sources?: { status?: string }[] };
        return (
          (body.sources ?? []).length > 0 && (body.sources ?? []).every((source) => source.status === 'ready')
        );
      },
      120_000,
      200,
    ).catch(() => console.log('    (the docs source did not report ready; measured anyway)'));
    await settle();
    const pid = gateway.child.process.pid;
    const idle = await sampleMemory(pid, reporting);
    await loadWith(
      `${gateway.url}/mcp`,
      modernRequest('tools/call', { name: 'demo__echo', arguments: { text: 'hello' } }, 'demo__echo', auth),
      'tools/call, README example',
    );
    await settle(1000);
    line('embedded, README example', idle, await sampleMemory(pid, reporting));
    console.log(
      `    start-up to ready: ${ready.toFixed(0)} ms (the gateway alone; the demo server is a child, in RSS)`,
    );
  } finally {
    await gateway.stop();
  }
}

async function besidePeers(dir: string, key: GeneratedKey, flags: readonly string[]): Promise<void> {
  const upstream = await startChild(['dist/test/bench/default-upstream-main.js'], /"url"/);
  const upstreamUrl = (JSON.parse(upstream.line) as { url: string }).url;
  const reporting = heapReporting(dir, 'relay');
  const gateway = await startBenchGateway(dir, 'relay', oneSourceConfig(upstreamUrl, key), reporting.env, [
    ...flags,
    ...reporting.nodeArgs,
  ]);
  const vmcp = await startVmcp(upstreamUrl).catch((error: unknown) => `vmcp failed: ${String(error)}`);
  const agentgateway = await startAgentgateway(upstreamUrl).catch(
    (error: unknown) => `agentgateway failed: ${String(error)}`,
  );
  try {
    await settle();
    const pid = gateway.child.process.pid;
    const idle = await sampleMemory(pid, reporting);
    const auth = { authorization: `Bearer ${key.key}` };
    await loadWith(
      `${gateway.url}/mcp`,
      modernRequest('tools/call', { name: 'up__echo', arguments: { text: 'hello' } }, 'up__echo', auth),
      'tools/call via Agent Gateway',
    );
    await settle(1000);
    line('Agent Gateway, one HTTP upstream', idle, await sampleMemory(pid, reporting));
    if (typeof vmcp === 'string') console.log(`  ToolHive vMCP skipped: ${vmcp}`);
    else {
      const vmcpIdle = await sampleMemory(vmcp.pid);
      await loadWith(
        vmcp.url,
        legacyRequest('tools/call', { name: 'up_echo', arguments: { text: 'hello' } }, {}, vmcp.sessionId),
        'tools/call via vMCP',
      );
      await settle(1000);
      line('ToolHive vMCP v0.47.0, same upstream', vmcpIdle, await sampleMemory(vmcp.pid));
    }
    if (typeof agentgateway === 'string') console.log(`  agentgateway skipped: ${agentgateway}`);
    else {
      const agentgatewayIdle = await sampleMemory(agentgateway.pid);
      const echo = { name: AGENTGATEWAY_ECHO, arguments: { text: 'hello' } };
      await loadWith(
        agentgateway.url,
        agentgateway.modernFace
          ? modernRequest('tools/call', echo, AGENTGATEWAY_ECHO)
          : legacyRequest('tools/call', echo, {}, agentgateway.sessionId),
        `tools/call via agentgateway (${agentgateway.modernFace ? '2026 face' : '2025 session'})`,
      );
      await settle(1000);
      line(
        `agentgateway ${agentgateway.version}, same upstream`,
        agentgatewayIdle,
        await sampleMemory(agentgateway.pid),
      );
    }
  } finally {
    await gateway.stop();
    if (typeof vmcp !== 'string') await vmcp.stop();
    if (typeof agentgateway !== 'string') await agentgateway.stop();
    await upstream.stop();
  }
}

async function kubernetesReplica(dir: string, flags: readonly string[]): Promise<void> {
  const cluster = new Cluster(await startControlPlane());
  const reporting = heapReporting(dir, 'kube');
  cluster.nodeArgs = [...flags, ...reporting.nodeArgs];
  cluster.env = reporting.env;
  try {
    await cluster.kubectl(['create', 'namespace', 'agw']);
    const gateway = await cluster.gateway();
    await settle();
    const empty = await sampleMemory(gateway.pid, reporting);
    const probes: GeneratedKey[] = [];
    for (let w = 0; w < 100; w += 1) {
      const keys = Array.from({ length: 200 }, () => generateKey());
      probes.push(keys[199] as GeneratedKey);
      const rendered = renderWorkspace({
        name: `ws-${w}`,
        namespace: 'tenant',
        displayName: `workspace ${w}`,
        mcpSources: [],
        dataSources: [],
        keys: keys.map((k) => ({ id: k.id, hash: k.hash, access: 'read' })),
        credentials: new Map(),
      });
      await cluster.kubectl(
        ['apply', '--server-side', '--force-conflicts', '-f', '-'],
        JSON.stringify({ apiVersion: 'v1', kind: 'List', items: asObjects(rendered.parts) }),
      );
    }
    const status = async (probe: GeneratedKey) =>
      (await fetch(`${gateway.url}/agent/tools`, { headers: { authorization: `Bearer ${probe.key}` } }))
        .status;
    for (const probe of probes) await until(async () => (await status(probe)) === 200, 120_000, 20);
    await settle();
    const idle = await sampleMemory(gateway.pid, reporting);
    // c=32 over keys of every workspace: each worker's request picks the next workspace's key.
    const auths = probes.map((probe) => `Bearer ${probe.key}`);
    await runLoad('warm-up', `${gateway.url}/agent/tools`, {
      concurrency: 32,
      durationMs: 300,
      method: 'GET',
    });
    const result = await runLoad('GET /agent/tools, 100 workspaces', `${gateway.url}/agent/tools`, {
      concurrency: 32,
      durationMs: LOAD_MS,
      method: 'GET',
      headersFor: (sequence) => ({ authorization: auths[sequence % auths.length] as string }),
    });
    console.log(`    load: ${formatResult(result)}`);
    await settle(1000);
    console.log(`  serve --kubernetes, empty namespace:  ${formatSample(empty)}`);
    line('serve --kubernetes, 100 ws / 20k keys', idle, await sampleMemory(gateway.pid, reporting));
  } finally {
    await cluster.stop();
  }
}

async function operatorProcess(dir: string, flags: readonly string[]): Promise<void> {
  const cluster = new Cluster(await startControlPlane());
  const reporting = heapReporting(dir, 'operator');
  cluster.nodeArgs = [...flags, ...reporting.nodeArgs];
  cluster.env = reporting.env;
  try {
    await cluster.kubectl(['create', 'namespace', 'tenant']);
    await cluster.kubectl(['create', 'namespace', 'agw']);
    const operator = await cluster.operator();
    await settle();
    const idle = await sampleMemory(operator.pid, reporting);
    await cluster.applyWorkspacesWithKeys('tenant', 100, 10);
    await cluster.apiKeysReady('tenant', 1000);
    await settle();
    line('operator, 100 Workspaces + 1,000 ApiKeys', idle, await sampleMemory(operator.pid, reporting));
  } finally {
    await cluster.stop();
  }
}

export async function memoryBench(): Promise<void> {
  console.log('\n== Memory benchmark ==');
  console.log(
    `conditions: Node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), loopback; each participant its own process; RSS from /proc (with direct children: the README example's demo server), V8 heap reported by the process on SIGUSR2 (test/bench/heap-reporter.ts); idle = 2 s after ready; load = ${LOAD_MS} ms at c=32 after a 300 ms warm-up, read 1 s after; Agent Gateway logging and telemetry off`,
  );
  const flags = await deployedFlags();
  console.log(
    `Node flags as deployed: embedded (npm start) ${flags.embedded.join(' ') || 'none'}; chart gateway ${flags.gateway.join(' ') || 'none'}; chart operator ${flags.operator.join(' ') || 'none'}`,
  );
  const dir = await mkdtemp(join(tmpdir(), 'agw-memory-bench-'));
  const key = generateKey();
  try {
    const part = process.env['BENCH_MEMORY_PART'];
    const runs = (name: string) => part === undefined || part === name;
    if (runs('minimal')) await minimalEmbedded(dir, key, flags.embedded);
    if (runs('readme')) await readmeExample(dir, key, flags.embedded);
    if (runs('peers')) await besidePeers(dir, key, flags.embedded);
    if (runs('kubernetes')) await kubernetesReplica(dir, flags.gateway);
    if (runs('operator')) await operatorProcess(dir, flags.operator);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
