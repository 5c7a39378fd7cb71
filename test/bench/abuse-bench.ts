// Abuse benchmark (issue 8): reproduces the outside probe's slow-body and large-response cases against
// a real `agent-gateway serve` process and prints what the gateway did — when trickling sockets were
// closed, and the gateway's RSS and another workspace's latency while a 50 MB tool result is refused.
// Never asserts; prints numbers and conditions.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKey } from '../../gateway/auth/index.js';
import { startBenchGateway } from './bench-gateway.js';
import { startChild, type Child } from './child-process.js';
import { formatResult, runLoad } from './load.js';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN) / 1024;
}

/** Opens `count` sockets that declare a 100 kB body and send one byte a second; resolves with the
 * seconds after which each was closed by the server (or `limitS` if still open then). */
function trickle(port: number, count: number, head: string, limitS: number): Promise<number[]> {
  const started = Date.now();
  return Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<number>((resolve) => {
          const socket = connect(port, '127.0.0.1');
          const timer = setInterval(() => head !== '' && socket.writable && socket.write(' '), 1000);
          const give = setTimeout(() => socket.destroy(), limitS * 1000);
          socket.on('connect', () => head !== '' && socket.write(head));
          socket.on('data', () => undefined);
          socket.on('error', () => undefined);
          socket.on('close', () => {
            clearInterval(timer);
            clearTimeout(give);
            resolve((Date.now() - started) / 1000);
          });
        }),
    ),
  );
}

function spread(values: readonly number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) =>
    (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0).toFixed(1);
  return `min ${at(0)} s, median ${at(0.5)} s, max ${at(1)} s`;
}

async function slowBodies(gatewayUrl: string, key: string): Promise<void> {
  const port = Number(new URL(gatewayUrl).port);
  const head = (auth: string) =>
    `POST /agent/search HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n${auth}Content-Length: 100000\r\n\r\n{`;
  const limitS = 75;
  console.log(
    `slow bodies: 32 sockets each, 1 byte/s of a declared 100 kB body, watched for up to ${limitS} s`,
  );
  const [authenticated, anonymous, silent] = await Promise.all([
    trickle(port, 32, head(`Authorization: Bearer ${key}\r\n`), limitS),
    trickle(port, 32, head(''), limitS),
    trickle(port, 32, '', limitS),
  ]);
  const stillOpen = (values: number[]) => values.filter((s) => s >= limitS - 0.5).length;
  console.log(
    `  with a valid key:   closed after ${spread(authenticated)}; open at ${limitS} s: ${stillOpen(authenticated)}`,
  );
  console.log(
    `  without a key:      closed after ${spread(anonymous)}; open at ${limitS} s: ${stillOpen(anonymous)}`,
  );
  console.log(
    `  silent (no bytes):  closed after ${spread(silent)}; open at ${limitS} s: ${stillOpen(silent)}`,
  );
}

async function largeResult(gateway: Child, gatewayUrl: string, key: string, otherKey: string): Promise<void> {
  const pid = gateway.process.pid as number;
  const call = (name: string, args: Record<string, unknown>, auth: string) => ({
    method: 'POST' as const,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { _meta: META, name, arguments: args },
    }),
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': name,
      authorization: `Bearer ${auth}`,
    },
  });
  const other = call('up__echo', { text: 'hello' }, otherKey);
  await runLoad('warm-up', `${gatewayUrl}/mcp`, { concurrency: 4, durationMs: 500, ...other });
  const baseline = await runLoad('other workspace echo, alone', `${gatewayUrl}/mcp`, {
    concurrency: 4,
    durationMs: 3000,
    ...other,
  });
  const before = rssMb(pid);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 20);
  const big = call('big__big', { mb: 50 }, key);
  const attack = (async () => {
    const outcomes: string[] = [];
    for (let i = 0; i < 4; i += 1) {
      const response = await fetch(`${gatewayUrl}/mcp`, big);
      const text = await response.text();
      const code =
        /"code":"([a-z_]+)"/.exec(text)?.[1] ??
        (text.length > 1000 ? `${(text.length / 1e6).toFixed(1)} MB result` : text.slice(0, 80));
      outcomes.push(`HTTP ${response.status} ${code}`);
    }
    return outcomes;
  })();
  const during = await runLoad('other workspace echo, during 4 × 50 MB calls', `${gatewayUrl}/mcp`, {
    concurrency: 4,
    durationMs: 3000,
    ...other,
  });
  const outcomes = await attack;
  clearInterval(sampler);
  console.log(`large result: 4 sequential calls of a tool answering 50 MB, in workspace A`);
  console.log(`  answers: ${[...new Set(outcomes)].join('; ')}`);
  console.log(
    `  gateway RSS: ${before.toFixed(0)} MB before, peak ${peak.toFixed(0)} MB (+${(peak - before).toFixed(0)} MB), ${rssMb(pid).toFixed(0)} MB after`,
  );
  console.log(formatResult(baseline));
  console.log(formatResult(during));
  console.log(`  other workspace p99 during / alone: ${(during.p99Ms / baseline.p99Ms).toFixed(2)}x`);
}

export async function abuseBench(): Promise<void> {
  console.log('\n== Abuse benchmark (slow bodies, large upstream results) ==');
  console.log(
    `conditions: Node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), loopback; gateway = agent-gateway serve with default limits (logging off); upstream = v2-SDK 2026-07-28 server in its own process`,
  );
  const upstream = await startChild(['dist/test/bench/big-result-upstream-main.js'], /"url"/);
  const upstreamUrl = (JSON.parse(upstream.line) as { url: string }).url;
  const dir = await mkdtemp(join(tmpdir(), 'agw-abuse-bench-'));
  const key = generateKey();
  const otherKey = generateKey();
  const gateway = await startBenchGateway(dir, 'gateway', {
    workspaces: [
      {
        name: 'a',
        mcpSources: [{ name: 'big', transport: 'streamable-http', url: upstreamUrl }],
        keys: [{ id: key.id, hash: key.hash, access: 'write' }],
      },
      {
        name: 'b',
        mcpSources: [{ name: 'up', transport: 'streamable-http', url: upstreamUrl }],
        keys: [{ id: otherKey.id, hash: otherKey.hash, access: 'write' }],
      },
    ],
  });
  const gatewayUrl = gateway.url;
  try {
    await largeResult(gateway.child, gatewayUrl, key.key, otherKey.key);
    await slowBodies(gatewayUrl, key.key);
  } finally {
    await gateway.stop();
    await upstream.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
