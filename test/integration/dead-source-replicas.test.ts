// A dead source behind two real gateway processes sharing one real redis-server (issue 37 item 12):
// while it is down neither replica lists it on request paths; when it answers again one background
// probe lists it, with no client request, and the other replica takes that list from Redis instead
// of listing the upstream again.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startModernServer, type RunningModernServer } from '../fixtures/upstreams/modern-server.js';
import { freePort } from '../infra/free-port.js';
import { get, keyRecord, mcpPost, newKey } from '../support/gateway-harness.js';
import type { GatewayProcess } from '../support/gateway-processes.js';
import { startReplicaProcesses, type RedisReplicas } from '../support/redis-replicas.js';
import { until } from '../support/until.js';

const key = newKey();
let healthy: RunningModernServer;
let revived: RunningModernServer | undefined;
let gonePort: number;
let replicas: RedisReplicas<GatewayProcess> | undefined;
let gateways: readonly GatewayProcess[] = [];

beforeAll(async () => {
  healthy = await startModernServer();
  gonePort = await freePort();
  replicas = await startReplicaProcesses(2, {
    workspaces: [
      {
        name: 'demo',
        mcpSources: [
          { name: 'healthy', transport: 'streamable-http', url: healthy.url },
          {
            name: 'gone',
            transport: 'streamable-http',
            url: `http://127.0.0.1:${gonePort}/mcp`,
            breaker: { resetTimeoutMs: 2000 },
          },
        ],
        keys: [keyRecord(key, { access: 'write' })],
      },
    ],
  });
  gateways = replicas.gateways;
}, 60_000);

afterAll(async () => {
  await replicas?.stop();
  await healthy?.close();
  await revived?.close();
});

async function gone(url: string): Promise<Record<string, unknown> | undefined> {
  const body = (await (await get(`${url}/agent/sources?response_format=json`, key.key)).json()) as {
    sources: Record<string, unknown>[];
  };
  return body.sources.find((s) => s['id'] === 'gone');
}

it('discovery:dead-source-replicas — with Redis, one probe brings a dead source back for both replicas, with no client request', async () => {
  for (const gateway of gateways) {
    await until('the source to be known as failing', async () =>
      (await gone(gateway.url))?.['failing_since'] !== null ? true : undefined,
    );
    const body = (await (await mcpPost(gateway.url, key.key, { method: 'tools/list' })).json()) as {
      result: { _meta?: Record<string, { source: string }[]> };
    };
    expect(body.result._meta?.['io.agentgateway/unavailableSources']?.map((s) => s.source)).toEqual(['gone']);
  }
  revived = await startModernServer({ port: gonePort });
  const lists = () => revived?.log.filter((r) => r.rpcMethod === 'tools/list').length ?? 0;
  // No client request from here until a probe has listed the revived upstream.
  await until('a probe to list the revived source', () => Promise.resolve(lists() > 0 ? true : undefined));
  // Both replicas' probes run (≤ 2.5 s apart); the later one finds the list in Redis.
  await new Promise((resolve) => setTimeout(resolve, 3000));
  expect(lists()).toBe(1);
  for (const gateway of gateways) {
    expect(await gone(gateway.url)).toMatchObject({ status: 'ready', failing_since: null });
    const body = (await (await mcpPost(gateway.url, key.key, { method: 'tools/list' })).json()) as {
      result: { tools: { name: string }[] };
    };
    expect(body.result.tools.some((t) => t.name.startsWith('gone__'))).toBe(true);
  }
  expect(lists()).toBe(1);
}, 60_000);
