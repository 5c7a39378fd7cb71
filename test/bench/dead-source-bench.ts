// One dead source out of 50 (issue 37 item 12): lexical find_tools and tools/list latency through a
// running gateway with 50 healthy Streamable HTTP sources, then with one of the 50 replaced by a port
// that refuses connections, then by a server that accepts requests and never answers; in one run,
// with the sources' default time-outs and breakers. Also counts the gateway's warnings and the dead
// source's contacts while measuring. Numbers, ratios and conditions are printed; nothing asserted.
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { generateKey } from '../../gateway/auth/index.js';
import { freePort } from '../infra/free-port.js';
import { startHungServer } from '../fixtures/upstreams/hung-server.js';
import { writeGatewayConfig } from './bench-gateway.js';
import { startChild, type Child } from './child-process.js';
import { percentile } from './retrieval-bench.js';
import { loadToolRetrievalSet } from './tool-retrieval/tool-retrieval-set.js';

const SOURCES = 50;
const MEASURE_MS = 30_000;
const CLIENTS = 2;

type Condition = 'none' | 'refusing' | 'hanging' | 'none again';

interface Measured {
  readonly condition: Condition;
  readonly findTools: number[];
  readonly toolsList: number[];
  readonly warnings: number;
  readonly deadContacts: number | undefined;
  readonly listedTools: number;
}

function mcpHeaders(key: string, method: string, name?: string): Record<string, string> {
  return {
    authorization: `Bearer ${key}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': method,
    ...(name === undefined ? {} : { 'mcp-name': name }),
  };
}

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

async function post(url: string, headers: Record<string, string>, body: unknown): Promise<unknown> {
  const response = await fetch(`${url}/mcp`, { method: 'POST', headers, body: JSON.stringify(body) });
  return response.json();
}

async function measure(
  condition: Condition,
  upstreamUrl: string,
  dead: { url: string; contacts: () => number } | undefined,
  tasks: readonly string[],
): Promise<Measured> {
  const dir = await mkdtemp(join(tmpdir(), 'agw-deadbench-'));
  const searchKey = generateKey();
  const listKey = generateKey();
  const sources = Array.from({ length: SOURCES }, (_, i) => ({
    name: `s${i}`,
    transport: 'streamable-http',
    url: i === SOURCES - 1 && dead !== undefined ? dead.url : `${upstreamUrl}/${i}`,
  }));
  const configPath = await writeGatewayConfig(dir, {
    workspaces: [
      {
        name: 'bench',
        mcpSources: sources,
        keys: [
          { id: searchKey.id, hash: searchKey.hash, access: 'write', toolDisclosure: 'search' },
          { id: listKey.id, hash: listKey.hash, access: 'write' },
        ],
      },
    ],
  });
  const gateway: Child = await startChild(
    ['bin/agent-gateway.js', 'serve', '--config', configPath, '--log-level', 'warn'],
    /listening on/,
    'stderr',
  );
  const url = /listening on (\S+)/.exec(gateway.line)?.[1] as string;
  let warnings = 0;
  let counting = false;
  // The gateway's log (pino JSON lines) goes to stdout.
  createInterface({ input: gateway.process.stdout as Readable }).on('line', (line) => {
    if (counting && /"level":40/.test(line)) warnings += 1;
  });
  try {
    const findTools = (query: string) =>
      post(url, mcpHeaders(searchKey.key, 'tools/call', 'find_tools'), {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'find_tools', arguments: { query, limit: 5, mode: 'lexical' }, _meta: META },
      });
    const toolsList = () =>
      post(url, mcpHeaders(listKey.key, 'tools/list'), {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: { _meta: META },
      }) as Promise<{ result?: { tools: unknown[] } }>;
    // Warm-up: every healthy source listed (and cached for the upstream's 600 s), the dead one failed
    // at least once (a hanging one after its 15 s list time-out).
    const deadline = Date.now() + 120_000;
    let listed = 0;
    for (;;) {
      const sourcesBody = (await (
        await fetch(`${url}/agent/sources?response_format=json`, {
          headers: { authorization: `Bearer ${listKey.key}` },
        })
      ).json()) as { sources: { id: string; status: string }[] };
      const ready = sourcesBody.sources.filter((s) => s.status === 'ready').length;
      const failed = sourcesBody.sources.filter((s) => s.status === 'unavailable').length;
      if (ready === SOURCES - (dead === undefined ? 0 : 1) && failed === (dead === undefined ? 0 : 1)) break;
      if (Date.now() > deadline) throw new Error(`warm-up: ${ready} ready, ${failed} unavailable`);
      await new Promise((r) => setTimeout(r, 500));
    }
    listed = (await toolsList()).result?.tools.length ?? 0;
    for (const task of tasks.slice(0, 20)) await findTools(task);
    const contactsBefore = dead?.contacts();
    counting = true;
    const timings = { findTools: [] as number[], toolsList: [] as number[] };
    const end = performance.now() + MEASURE_MS;
    let next = 0;
    const client = async () => {
      while (performance.now() < end) {
        const task = tasks[next++ % tasks.length] as string;
        let started = performance.now();
        await findTools(task);
        timings.findTools.push(performance.now() - started);
        started = performance.now();
        await toolsList();
        timings.toolsList.push(performance.now() - started);
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, client));
    counting = false;
    return {
      condition,
      findTools: timings.findTools.sort((a, b) => a - b),
      toolsList: timings.toolsList.sort((a, b) => a - b),
      warnings,
      deadContacts: contactsBefore === undefined ? undefined : (dead?.contacts() ?? 0) - contactsBefore,
      listedTools: listed,
    };
  } finally {
    await gateway.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

function line(label: string, sorted: readonly number[], base: readonly number[] | undefined): string {
  const p = (q: number) => percentile(sorted, q).toFixed(2).padStart(8);
  const ratio =
    base === undefined
      ? ''
      : `  p95 ×${(percentile(sorted, 95) / percentile(base, 95)).toFixed(2)} of none, p50 ×${(percentile(sorted, 50) / percentile(base, 50)).toFixed(2)}`;
  return `    ${label.padEnd(22)} p50 ${p(50)} ms  p95 ${p(95)} ms  p99 ${p(99)} ms  (${sorted.length})${ratio}`;
}

export async function deadSourceBench(): Promise<void> {
  console.log('\n== Dead source benchmark (issue 37 item 12: one dead source out of 50) ==');
  const tasks = loadToolRetrievalSet().tasks.map((t) => t.task);
  const upstream = await startChild([resolve('dist/test/bench/catalogue-http-upstream-main.js')], /"url"/);
  const upstreamUrl = (JSON.parse(upstream.line) as { url: string }).url;
  const refusedPort = await freePort();
  const hung = await startHungServer({ mode: 'hang' });
  console.log(
    `conditions: Node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), load ${loadavg()[0]?.toFixed(1)}; ${SOURCES} Streamable HTTP sources (one upstream process, catalogue servers round-robin, tools/list ttlMs 600 s), default time-outs (list 15 s) and breakers (50 % of ≥ 5 in 30 s, reset 15 s); ${CLIENTS} clients in a loop of lexical find_tools (limit 5, a tool-retrieval task) then tools/list (all tools), ${MEASURE_MS / 1000} s per condition after warm-up; the dead source is s${SOURCES - 1}`,
  );
  try {
    const results: Measured[] = [];
    results.push(await measure('none', upstreamUrl, undefined, tasks));
    results.push(
      await measure(
        'refusing',
        upstreamUrl,
        { url: `http://127.0.0.1:${refusedPort}/mcp`, contacts: () => 0 },
        tasks,
      ),
    );
    results.push(
      await measure('hanging', upstreamUrl, { url: hung.url, contacts: () => hung.log.length }, tasks),
    );
    // The baseline once more at the end: how far the machine's load moved the numbers meanwhile.
    results.push(await measure('none again', upstreamUrl, undefined, tasks));
    const base = results[0] as Measured;
    for (const result of results) {
      const dead =
        result.condition === 'none' || result.condition === 'none again'
          ? `50 healthy${result.condition === 'none again' ? ' (again, at the end)' : ''}`
          : `49 healthy + 1 ${result.condition === 'refusing' ? 'refusing port' : 'hanging server'}`;
      console.log(
        `  ${dead}: ${result.listedTools} tools listed; ${result.warnings} warnings logged while measuring${result.condition === 'hanging' ? `; ${result.deadContacts} requests reached the hanging server` : ''}`,
      );
      const compare = result === base ? undefined : base;
      console.log(line('find_tools (lexical)', result.findTools, compare?.findTools));
      console.log(line('tools/list', result.toolsList, compare?.toolsList));
    }
  } finally {
    await hung.close();
    await upstream.stop();
  }
}
