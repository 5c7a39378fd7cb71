// Limits per tool and per identity (issue 41 part 4) through real clients: two in-process gateways
// share one real redis-server and a real 2026-07-28 upstream. A per-caller limit on one tool is
// counted once across both replicas (exactly N calls reach the upstream), answers 429 with the
// rate-limit error naming the limit, and applies alike to the SDK v2 client, the v1 (2025-era)
// client and call_tool. Calls the key cannot see, may not make, or that fail an earlier rung of the
// ladder never reach a counter.
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModernServer, type RunningModernServer } from '../fixtures/upstreams/modern-server.js';
import type { Harness } from '../support/gateway-harness.js';
import { get, keyRecord, mcpPost, newKeys } from '../support/gateway-harness.js';
import { connectClient } from '../support/mcp-clients.js';
import { startReplicaHarnesses, type RedisReplicas } from '../support/redis-replicas.js';

const [burst, other, modern, legacy, searcher, hidden, reader, writer] = newKeys(8);
let upstream: RunningModernServer;
let replicas: RedisReplicas<Harness> | undefined;
let a: Harness;
let b: Harness;

beforeAll(async () => {
  upstream = await startModernServer();
  // 250 ms rather than the default 50 (as shared-limits.test.ts): on a loaded machine a stalled
  // event loop would send a check to the per-replica fallback and make the exact count a measure
  // of load. Whether a check went to Redis is asserted after the burst.
  replicas = await startReplicaHarnesses(
    2,
    {
      workspaces: [
        {
          name: 'demo',
          governance: {
            toolLimits: [
              { name: 'echo', tools: ['up__echo'], per: 'subject', callsPerHour: 5 },
              {
                name: 'failures',
                tools: ['up__fail', 'up__regional_*'],
                per: 'workspace',
                callsPerMinute: 2,
              },
            ],
          },
          mcpSources: [
            { name: 'up', transport: 'streamable-http', url: upstream.url, permissions: { fail: 'write' } },
          ],
          keys: [
            keyRecord(burst),
            keyRecord(other),
            keyRecord(modern),
            keyRecord(legacy),
            keyRecord(searcher, { toolDisclosure: 'search' }),
            keyRecord(hidden, { tools: ['up__echo'] }),
            keyRecord(reader, { access: 'read' }),
            keyRecord(writer, { access: 'write' }),
          ],
        },
      ],
    },
    { commandTimeoutMs: 250 },
  );
  [a, b] = replicas.gateways as [Harness, Harness];
}, 60_000);

afterAll(async () => {
  await replicas?.stop();
  await upstream?.close();
});

const upstreamCalls = (tool: string) =>
  upstream.log.filter(
    (entry) => entry.rpcMethod === 'tools/call' && JSON.stringify(entry.body ?? '').includes(`"${tool}"`),
  ).length;

function echo(url: string, key: string, id: number): Promise<Response> {
  return mcpPost(url, key, {
    id,
    method: 'tools/call',
    params: { name: 'up__echo', arguments: { text: `${id}` } },
  });
}

interface RpcError {
  id: number;
  error?: { code: number; message: string; data?: Record<string, unknown> };
}

async function sharedState(url: string, key: string): Promise<string> {
  const response = await get(`${url}/agent/sources?response_format=json`, key);
  return ((await response.json()) as { shared_state: string }).shared_state;
}

describe('limits per tool and identity', () => {
  it('governance:tool-limit-replicas-exact — 16 concurrent calls of one caller over two replicas: exactly the limit reaches the upstream, the rest get 429 naming the limit', async () => {
    const before = upstreamCalls('echo');
    const responses = await Promise.all(
      Array.from({ length: 16 }, (_, i) => echo(i % 2 === 0 ? a.url : b.url, burst.key, 100 + i)),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(11);
    expect(upstreamCalls('echo') - before).toBe(5);
    // Every check went to Redis (none to the per-replica fallback, which would not be exact).
    expect([await sharedState(a.url, other.key), await sharedState(b.url, other.key)]).toEqual([
      'redis',
      'redis',
    ]);

    const refused = responses.find((r) => r.status === 429) as Response;
    const retryAfter = Number(refused.headers.get('retry-after'));
    // One call every 12 minutes once the burst of five is spent.
    expect(retryAfter).toBeGreaterThan(600);
    expect(retryAfter).toBeLessThanOrEqual(720);
    expect(refused.headers.get('ratelimit-policy')).toBe('"tool-echo-hour";q=5;w=3600');
    expect(refused.headers.get('ratelimit')).toMatch(/^"tool-echo-hour";r=0;t=\d+$/);
    const body = (await refused.json()) as RpcError;
    expect(body.id).toBeGreaterThanOrEqual(100);
    expect(body.error).toMatchObject({
      code: -31018,
      data: {
        code: 'rate_limited',
        class: 'request',
        retryAfterSeconds: retryAfter,
        limit: { toolLimit: 'echo', per: 'subject', callsPerHour: 5 },
      },
    });
    expect(body.error?.message).toMatch(
      /^The tool limit "echo" \(5 calls per hour for this caller\) is reached/,
    );
    // Another caller has its own counter; the limited caller's other tools are not limited.
    expect((await echo(b.url, other.key, 1)).status).toBe(200);
    const list = await mcpPost(a.url, burst.key, { method: 'tools/list' });
    expect(list.status).toBe(200);
  });

  it('governance:tool-limit-sdk-clients — the SDK v2 client (2026-07-28) and the v1 client (2025 era) are limited alike and told the limit', async () => {
    const client = await connectClient(a.url, modern.key, 'auto');
    const v1 = new LegacyClient({ name: 'it-legacy', version: '1.0.0' });
    await v1.connect(
      new LegacyTransport(new URL(`${b.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${legacy.key}` } },
      }),
    );
    try {
      for (let i = 0; i < 5; i += 1) {
        const result = await client.callTool({ name: 'up__echo', arguments: { text: `m${i}` } });
        expect(result.isError).not.toBe(true);
        const old = await v1.callTool({ name: 'up__echo', arguments: { text: `l${i}` } });
        expect(old.isError).not.toBe(true);
      }
      const modernRefusal = await client.callTool({ name: 'up__echo', arguments: { text: 'm5' } }).then(
        () => undefined,
        (error: unknown) => error as Error,
      );
      const legacyRefusal = await v1.callTool({ name: 'up__echo', arguments: { text: 'l5' } }).then(
        () => undefined,
        (error: unknown) => error as Error,
      );
      // Both SDKs surface a 429 as a transport error carrying the JSON-RPC error body.
      for (const refusal of [modernRefusal, legacyRefusal]) {
        expect(refusal).toBeInstanceOf(Error);
        expect(String(refusal?.message)).toContain('"code":-31018');
        expect(String(refusal?.message)).toContain('"toolLimit":"echo"');
      }
    } finally {
      await client.close();
      await v1.close();
    }
  });

  it('governance:tool-limit-call-tool — a call through call_tool counts on the same counter as a direct call of the tool', async () => {
    const viaCallTool = (i: number) =>
      mcpPost(i % 2 === 0 ? a.url : b.url, searcher.key, {
        id: 300 + i,
        method: 'tools/call',
        params: { name: 'call_tool', arguments: { name: 'up__echo', arguments: { text: `c${i}` } } },
      });
    const statuses = [];
    for (let i = 0; i < 5; i += 1) statuses.push((await viaCallTool(i)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    const refused = await viaCallTool(5);
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as RpcError).error?.data).toMatchObject({ limit: { toolLimit: 'echo' } });
    expect((await echo(a.url, searcher.key, 399)).status).toBe(429);
  });

  it('governance:tool-limit-after-visibility — calls the key cannot see, may not make, or whose headers fail the ladder count nothing; permitted calls do', async () => {
    const fail = (url: string, key: string, id: number) =>
      mcpPost(url, key, { id, method: 'tools/call', params: { name: 'up__fail', arguments: {} } });
    const lookup = (key: string, headers: Record<string, string>) =>
      mcpPost(
        b.url,
        key,
        { method: 'tools/call', params: { name: 'up__regional_lookup', arguments: { region: 'eu' } } },
        headers,
      );
    // Hidden: exactly the answer of an unknown tool, however often.
    for (let i = 0; i < 4; i += 1) {
      const answer = (await (await fail(a.url, hidden.key, 400 + i)).json()) as RpcError;
      expect(answer.error).toMatchObject({ code: -32602, message: 'Unknown tool: up__fail' });
    }
    // Not permitted: a read key calling a write tool.
    for (let i = 0; i < 3; i += 1) {
      const answer = (await (await fail(b.url, reader.key, 410 + i)).json()) as RpcError;
      expect(answer.error?.data).toMatchObject({ code: 'forbidden' });
    }
    // Refused earlier in the ladder: a modern call without the tool's Mcp-Param header.
    expect((await lookup(writer.key, {})).status).toBe(400);
    // None of them counted: the workspace's two calls a minute are all there.
    expect((await fail(a.url, writer.key, 420)).status).toBe(200);
    expect((await lookup(writer.key, { 'mcp-param-region': 'eu' })).status).toBe(200);
    const third = await fail(b.url, writer.key, 421);
    expect(third.status).toBe(429);
    expect(((await third.json()) as RpcError).error?.data).toMatchObject({
      limit: { toolLimit: 'failures', per: 'workspace', callsPerMinute: 2 },
    });
    // A hidden tool stays unknown even while its limit is reached: no existence oracle.
    const stillUnknown = (await (await fail(a.url, hidden.key, 430)).json()) as RpcError;
    expect(stillUnknown.error).toMatchObject({ code: -32602, message: 'Unknown tool: up__fail' });
  });

  it('governance:tool-limit-redis-keys — the counters in Redis: digests under the workspace hash tag, bounded names, each expiring within its window', async () => {
    const client = new Redis((replicas as RedisReplicas<Harness>).redis.url);
    try {
      const names: string[] = [];
      let cursor = '0';
      do {
        const [next, keys] = await client.scan(cursor, 'MATCH', '*:tool:*', 'COUNT', 500);
        names.push(...keys);
        cursor = next;
      } while (cursor !== '0');
      // echo per caller (hour) for the callers above, and the workspace's failures (minute).
      expect(names.filter((name) => name.endsWith(':hour')).length).toBeGreaterThanOrEqual(4);
      expect(names.filter((name) => name.includes(':workspace:'))).toHaveLength(1);
      const raw = [burst, other, modern, legacy, searcher, writer].map((k) => k.id);
      for (const name of names) {
        expect(name).toMatch(
          /^agw:\{[A-Za-z0-9_-]{32}\}:tool:[A-Za-z0-9_-]{32}:(subject:[A-Za-z0-9_-]{32}:hour|workspace:minute)$/,
        );
        for (const material of ['demo', 'echo', 'failures', ...raw]) expect(name).not.toContain(material);
        const ttl = await client.pttl(name);
        expect(ttl, name).toBeGreaterThan(0);
        expect(ttl, name).toBeLessThanOrEqual(name.endsWith(':hour') ? 3_600_000 : 60_000);
      }
    } finally {
      client.disconnect();
    }
  });
});
