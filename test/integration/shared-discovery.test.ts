// The discovery cache shared through Redis (issue 10 test 2): three real gateway processes with one
// config and one real redis-server in front of one upstream whose log counts tools/list requests.
// A cold stampede on all three costs one upstream list; later lists on any replica cost none; a
// refresh on one replica lists once and serves all three; every replica reports the source ready.
import { expect, it } from 'vitest';
import { startModernServer } from '../fixtures/upstreams/modern-server.js';
import { fileReplicas, startReplicaProcesses } from '../support/redis-replicas.js';
import { get, mcpPost, newKey } from '../support/gateway-harness.js';

const key = newKey();
const { upstream, gateways } = fileReplicas(startReplicaProcesses, 3, startModernServer, 'up', key);

const lists = () => upstream.log.filter((entry) => entry.rpcMethod === 'tools/list').length;

async function toolNames(url: string): Promise<string[]> {
  const body = (await (await mcpPost(url, key.key, { method: 'tools/list' })).json()) as {
    result: { tools: { name: string }[] };
  };
  return body.result.tools.map((t) => t.name);
}

it('discovery:shared-cache — a cold stampede on three replicas lists the upstream once; later lists on any replica not at all; a refresh serves all', async () => {
  // The start-up warm-up of each replica already asked for the list: one upstream call between them.
  const deadline = Date.now() + 10_000;
  while (lists() === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const stampede = await Promise.all(gateways.flatMap((g) => [toolNames(g.url), toolNames(g.url)]));
  for (const names of stampede) expect(names).toContain('up__echo');
  expect(lists()).toBe(1);
  for (const gateway of gateways) {
    expect(await toolNames(gateway.url)).toContain('up__echo');
    const sources = (await (
      await get(`${gateway.url}/agent/sources?response_format=json`, key.key)
    ).json()) as {
      shared_state: string;
      sources: { id: string; status: string; era: string | null }[];
    };
    expect(sources.shared_state).toBe('redis');
    expect(sources.sources.find((s) => s.id === 'up')).toMatchObject({ status: 'ready', era: 'modern' });
  }
  expect(lists()).toBe(1);
  const refreshed = await fetch(`${(gateways[0] as { url: string }).url}/agent/sources/up/refresh`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key.key}` },
  });
  expect(refreshed.status).toBe(200);
  expect(lists()).toBe(2);
  await new Promise((r) => setTimeout(r, 200));
  for (const gateway of gateways) expect(await toolNames(gateway.url)).toContain('up__echo');
  expect(lists()).toBe(2);
});

const upstreamCalls = (method: string) => upstream.log.filter((entry) => entry.rpcMethod === method).length;

async function listed(url: string, method: 'resources/list' | 'prompts/list'): Promise<string[]> {
  const body = (await (await mcpPost(url, key.key, { method })).json()) as {
    result: { resources?: { uri: string }[]; prompts?: { name: string }[] };
  };
  return (body.result.resources ?? [])
    .map((r) => r.uri)
    .concat((body.result.prompts ?? []).map((p) => p.name));
}

it('discovery:shared-lists — a resource list (ttlMs 60 s) is listed once for three replicas; prompts (ttlMs 0) every time; a refresh drops both', async () => {
  const resourcesBefore = upstreamCalls('resources/list');
  const promptsBefore = upstreamCalls('prompts/list');
  for (const gateway of gateways) {
    expect((await listed(gateway.url, 'resources/list')).some((uri) => uri.includes('readme'))).toBe(true);
    expect(await listed(gateway.url, 'prompts/list')).toContain('up__greet');
  }
  expect(upstreamCalls('resources/list') - resourcesBefore).toBe(1);
  expect(upstreamCalls('prompts/list') - promptsBefore).toBe(3);
  const refreshed = await fetch(`${(gateways[1] as { url: string }).url}/agent/sources/up/refresh`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key.key}` },
  });
  expect(refreshed.status).toBe(200);
  await new Promise((r) => setTimeout(r, 200));
  for (const gateway of gateways) await listed(gateway.url, 'resources/list');
  expect(upstreamCalls('resources/list') - resourcesBefore).toBe(2);
});
