// MCP proxy benchmark (issue 3): the same small `tools/call` (echo) and `tools/list` sent directly to
// a 2026-07-28 upstream and through the gateway, at concurrency 1 and 32 on loopback. Upstream,
// gateway and load generator run as three processes. Prints req/s, p50, p99 and gateway/direct ratios.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { generateKey } from '../../gateway/auth/index.js';
import { startChild } from './child-process.js';
import { formatResult, runLoad, type LoadResult } from './load.js';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

function mcpRequest(method: string, params: Record<string, unknown>, name?: string) {
  return {
    method: 'POST' as const,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { _meta: META, ...params } }),
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(name === undefined ? {} : { 'mcp-name': name }),
    },
  };
}

export async function mcpProxyBench(): Promise<void> {
  const durationMs = Number(process.env['BENCH_DURATION_MS'] ?? 3000);
  console.log('\n== MCP proxy benchmark ==');
  console.log(
    `conditions: Node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), loopback; upstream = v2-SDK 2026-07-28 server (fixture), gateway = agent-gateway serve (logging off), load generator = this process; ${durationMs} ms per point after a warm-up`,
  );
  const upstream = await startChild(['dist/test/bench/modern-upstream-main.js'], /"url"/);
  const upstreamUrl = (JSON.parse(upstream.line) as { url: string }).url;
  const dir = await mkdtemp(join(tmpdir(), 'agw-mcp-bench-'));
  const key = generateKey();
  const configPath = join(dir, 'gateway.yaml');
  await writeFile(
    configPath,
    stringify({
      version: 1,
      server: { host: '127.0.0.1', port: 0 },
      workspaces: [
        {
          name: 'bench',
          mcpSources: [{ name: 'up', transport: 'streamable-http', url: upstreamUrl }],
          keys: [{ id: key.id, hash: key.hash, access: 'write' }],
        },
      ],
    }),
  );
  const gateway = await startChild(
    ['bin/agent-gateway.js', 'serve', '--config', configPath, '--log-level', 'silent'],
    /listening on/,
    'stderr',
  );
  const gatewayUrl = /listening on (\S+)/.exec(gateway.line)?.[1] as string;
  const auth = { authorization: `Bearer ${key.key}` };
  try {
    const echoDirect = mcpRequest('tools/call', { name: 'echo', arguments: { text: 'hello' } }, 'echo');
    const echoGateway = mcpRequest(
      'tools/call',
      { name: 'up__echo', arguments: { text: 'hello' } },
      'up__echo',
    );
    const list = mcpRequest('tools/list', {});
    await runLoad('warm-up', `${gatewayUrl}/mcp`, {
      concurrency: 8,
      durationMs: 1000,
      ...echoGateway,
      headers: { ...echoGateway.headers, ...auth },
    });
    await runLoad('warm-up', upstreamUrl, { concurrency: 8, durationMs: 500, ...echoDirect });
    const rows: [LoadResult, LoadResult][] = [];
    for (const concurrency of [1, 32]) {
      const d1 = await runLoad('tools/call echo — direct', upstreamUrl, {
        concurrency,
        durationMs,
        ...echoDirect,
      });
      const g1 = await runLoad('tools/call echo — via gateway', `${gatewayUrl}/mcp`, {
        concurrency,
        durationMs,
        ...echoGateway,
        headers: { ...echoGateway.headers, ...auth },
      });
      const d2 = await runLoad('tools/list — direct', upstreamUrl, { concurrency, durationMs, ...list });
      const g2 = await runLoad('tools/list — via gateway', `${gatewayUrl}/mcp`, {
        concurrency,
        durationMs,
        ...list,
        headers: { ...list.headers, ...auth },
      });
      rows.push([d1, g1], [d2, g2]);
      for (const r of [d1, g1, d2, g2]) console.log(formatResult(r));
    }
    console.log('gateway / direct:');
    for (const [direct, via] of rows) {
      console.log(
        `  ${via.label.replace(' — via gateway', '').padEnd(16)} c=${String(via.concurrency).padStart(2)}  throughput ${(via.rps / direct.rps).toFixed(2)}x  p50 ${(via.p50Ms / direct.p50Ms).toFixed(2)}x  p99 ${(via.p99Ms / direct.p99Ms).toFixed(2)}x`,
      );
    }
  } finally {
    await gateway.stop();
    await upstream.stop();
    await rm(dir, { recursive: true, force: true });
  }
  await ttlZeroBench(durationMs);
}

/** tools/call through a default v2-SDK upstream (ttlMs 0 on every list): direct, through a gateway
 * deciding on a list at most 2 s old (the default callListFloorMs) and through one listing before
 * every call (callListFloorMs 0, the behaviour before issue 13), in one run. */
async function ttlZeroBench(durationMs: number): Promise<void> {
  console.log('\n-- default v2-SDK upstream (no cache hints: tools/list says ttlMs 0) --');
  const upstream = await startChild(['dist/test/bench/default-upstream-main.js'], /"url"/);
  const upstreamUrl = (JSON.parse(upstream.line) as { url: string }).url;
  const dir = await mkdtemp(join(tmpdir(), 'agw-mcp-bench0-'));
  const key = generateKey();
  const gateways = [];
  try {
    const urls: Record<string, string> = {};
    for (const [label, floor] of [
      ['floor 2000 ms', 2000],
      ['floor 0 (list per call)', 0],
    ] as const) {
      const configPath = join(dir, `${floor}.yaml`);
      await writeFile(
        configPath,
        stringify({
          version: 1,
          server: { host: '127.0.0.1', port: 0 },
          workspaces: [
            {
              name: 'bench',
              mcpSources: [
                { name: 'up', transport: 'streamable-http', url: upstreamUrl, callListFloorMs: floor },
              ],
              keys: [{ id: key.id, hash: key.hash, access: 'write' }],
            },
          ],
        }),
      );
      const child = await startChild(
        ['bin/agent-gateway.js', 'serve', '--config', configPath, '--log-level', 'silent'],
        /listening on/,
        'stderr',
      );
      gateways.push(child);
      urls[label] = `${/listening on (\S+)/.exec(child.line)?.[1] as string}/mcp`;
    }
    const direct = mcpRequest('tools/call', { name: 'echo', arguments: { text: 'hello' } }, 'echo');
    const via = mcpRequest('tools/call', { name: 'up__echo', arguments: { text: 'hello' } }, 'up__echo');
    const viaAuth = { ...via, headers: { ...via.headers, authorization: `Bearer ${key.key}` } };
    for (const concurrency of [1, 32]) {
      await runLoad('warm-up', upstreamUrl, { concurrency, durationMs: 300, ...direct });
      const d = await runLoad('tools/call echo — direct', upstreamUrl, {
        concurrency,
        durationMs,
        ...direct,
      });
      console.log(formatResult(d));
      for (const [label, url] of Object.entries(urls)) {
        await runLoad('warm-up', url, { concurrency, durationMs: 300, ...viaAuth });
        const g = await runLoad(`tools/call — gateway, ${label}`, url, {
          concurrency,
          durationMs,
          ...viaAuth,
        });
        console.log(
          `${formatResult(g)}  ${(g.rps / d.rps).toFixed(2)}x direct, added p50 +${(g.p50Ms - d.p50Ms).toFixed(2)} ms p99 +${(g.p99Ms - d.p99Ms).toFixed(2)} ms`,
        );
      }
    }
  } finally {
    await Promise.all(gateways.map((g) => g.stop()));
    await upstream.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
