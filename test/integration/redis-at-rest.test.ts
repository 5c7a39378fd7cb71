// What Redis holds after a realistic run (issue 28.8): two gateway replicas share a real Redis and
// serve a credentialed 2025-era HTTP upstream (a shared upstream session), a stdio upstream with
// literal and referenced env, rate limits and quotas, a search, a refresh and a bridged elicitation
// continued across replicas. Then every key and value in Redis, and every pub/sub message seen
// meanwhile, is scanned: no upstream URL, command, argument, env name or value, credential, upstream
// session id, workspace name, key id or answer content appears in clear, no value opens as the
// requestState seal key, and every key expires by itself.
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { writeGatewayConfig } from '../bench/bench-gateway.js';
import {
  startLegacySessionfulServer,
  type RunningLegacySessionfulServer,
} from '../fixtures/upstreams/legacy-sessionful-server.js';
import { startRedis, type RunningRedis } from '../infra/redis-server.js';
import { DEMO_SERVER, httpSource, keyRecord, newKey } from '../support/gateway-document.js';
import { mcpPost, MODERN_META } from '../support/gateway-harness.js';
import { startGatewayProcesses, type GatewayProcess } from '../support/gateway-processes.js';

const key = newKey();
const WORKSPACE = 'at-rest-ws-q8v';
const UPSTREAM_TOKEN = `upstream-bearer-${randomBytes(8).toString('hex')}`;
const STDIO_TOKEN = `stdio-token-${randomBytes(8).toString('hex')}`;
const LITERAL_ENV_VALUE = `literal-env-${randomBytes(8).toString('hex')}`;
const ENCRYPTION_KEY = randomBytes(32).toString('base64');
const ANSWER = `Zephyrine${randomBytes(4).toString('hex')}`;
const ENV_NAMES = ['AGW_AT_REST_UPSTREAM_TOKEN', 'AGW_AT_REST_STDIO_TOKEN', 'AT_REST_LITERAL_NAME'];

let redis: RunningRedis;
let upstream: RunningLegacySessionfulServer;
let dir: string;
let monitor: Redis;
const messages: string[] = [];
const gateways: GatewayProcess[] = [];

beforeAll(async () => {
  redis = await startRedis();
  upstream = await startLegacySessionfulServer({ bearerToken: UPSTREAM_TOKEN });
  monitor = new Redis(redis.url);
  monitor.on('pmessage', (_pattern: string, channel: string, message: string) =>
    messages.push(`${channel} ${message}`),
  );
  await monitor.psubscribe('*');
  dir = await mkdtemp(join(tmpdir(), 'agw-at-rest-'));
  const limits = { requestsPerMinute: 1000, toolCallsPerDay: 1000, searchesPerDay: 1000 };
  const configPath = await writeGatewayConfig(dir, {
    sharedState: {
      redis: { url: { env: 'REDIS_URL' }, commandTimeoutMs: 500 },
      encryption: { keys: [{ env: 'AGW_REDIS_ENCRYPTION_KEY' }] },
    },
    workspaces: [
      {
        name: WORKSPACE,
        limits: { requestsPerSecond: 1000, ...limits },
        mcpSources: [
          httpSource('legacy', upstream.url, {
            credential: { type: 'bearer', secret: { env: 'AGW_AT_REST_UPSTREAM_TOKEN' } },
          }),
          {
            name: 'local',
            transport: 'stdio',
            command: process.execPath,
            args: [DEMO_SERVER],
            env: {
              AT_REST_LITERAL_NAME: LITERAL_ENV_VALUE,
              AGW_AT_REST_STDIO_TOKEN: { env: 'AGW_AT_REST_STDIO_TOKEN' },
            },
          },
        ],
        keys: [keyRecord(key, { access: 'write', limits })],
      },
    ],
  });
  gateways.push(
    ...(await startGatewayProcesses(configPath, 2, {
      ...process.env,
      REDIS_URL: redis.url,
      AGW_REDIS_ENCRYPTION_KEY: ENCRYPTION_KEY,
      AGW_AT_REST_UPSTREAM_TOKEN: UPSTREAM_TOKEN,
      AGW_AT_REST_STDIO_TOKEN: STDIO_TOKEN,
    })),
  );
}, 60_000);

afterAll(async () => {
  await Promise.all(gateways.map((g) => g.child.stop()));
  monitor?.disconnect();
  await upstream?.close();
  await redis?.stop();
  await rm(dir, { recursive: true, force: true });
});

type Rpc = { result?: Record<string, unknown>; error?: { code: number } };

async function rpc(gateway: GatewayProcess, method: string, params: Record<string, unknown> = {}) {
  return (await (await mcpPost(gateway.url, key.key, { method, params })).json()) as Rpc;
}

/** Every key with its value rendered as text (whatever its type) and its remaining lifetime. */
async function dump(): Promise<{ key: string; value: string; pttl: number }[]> {
  const client = new Redis(redis.url);
  try {
    const entries: { key: string; value: string; pttl: number }[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'COUNT', 500);
      for (const name of keys) {
        const type = await client.type(name);
        let value: unknown;
        if (type === 'string') value = await client.get(name);
        else if (type === 'hash') value = await client.hgetall(name);
        else if (type === 'zset') value = await client.zrange(name, '0', '-1', 'WITHSCORES');
        else if (type === 'set') value = await client.smembers(name);
        else if (type === 'list') value = await client.lrange(name, 0, -1);
        else value = `unread type ${type}`;
        entries.push({ key: name, value: JSON.stringify(value), pttl: await client.pttl(name) });
      }
      cursor = next;
    } while (cursor !== '0');
    return entries;
  } finally {
    client.disconnect();
  }
}

it('security:redis-at-rest — after discovery, sessions, limits and a bridged call, Redis holds no config, credential, session id or seal key in clear, and every key expires', async () => {
  const [a, b] = gateways as [GatewayProcess, GatewayProcess];
  // Discovery on both replicas (one lists, the other reads the shared entry), then a refresh.
  for (const gateway of gateways) {
    const listed = await rpc(gateway, 'tools/list');
    const names = (listed.result?.['tools'] as { name: string }[]).map((tool) => tool.name);
    expect(names).toContain('legacy__echo');
    expect(names.some((name) => name.startsWith('local__'))).toBe(true);
  }
  expect(
    (
      await fetch(`${a.url}/agent/sources/legacy/refresh`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key.key}` },
      })
    ).status,
  ).toBeLessThan(300);
  expect((await rpc(b, 'tools/list')).result).toBeDefined();
  // One upstream session, shared by both replicas; limits counted in Redis.
  for (const gateway of gateways) {
    const echoed = await rpc(gateway, 'tools/call', { name: 'legacy__echo', arguments: { text: 'x' } });
    expect(JSON.stringify(echoed.result)).toContain('"x"');
  }
  expect(upstream.sessionsIssued.length).toBeGreaterThan(0);
  const search = await fetch(`${b.url}/agent/search`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: 'anything' }),
  });
  expect(search.status).toBe(200);
  // A bridged elicitation: started on A, answered through B (forwarded to A over pub/sub).
  const meta = {
    ...MODERN_META,
    'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
  };
  const first = await rpc(a, 'tools/call', { _meta: meta, name: 'legacy__ask_name', arguments: {} });
  const requestState = first.result?.['requestState'] as string;
  expect(typeof requestState).toBe('string');
  const inputKey = Object.keys(first.result?.['inputRequests'] as object)[0] as string;
  const done = await rpc(b, 'tools/call', {
    _meta: meta,
    name: 'legacy__ask_name',
    arguments: {},
    requestState,
    inputResponses: { [inputKey]: { action: 'accept', content: { name: ANSWER } } },
  });
  expect(JSON.stringify(done.result)).toContain(`hello ${ANSWER}`);

  const entries = await dump();
  // The run wrote every kind of entry: lists, the shared session, limit counters, the replica set.
  for (const family of [
    /^agw:discovery:/,
    /^agw:session:/,
    /^agw:\{[^}]+\}:key:/,
    /^agw:\{[^}]+\}:workspace:/,
  ])
    expect(
      entries.some((entry) => family.test(entry.key)),
      String(family),
    ).toBe(true);
  expect(entries.map((entry) => entry.key)).toContain('agw:replicas');
  const url = new URL(upstream.url);
  const forbidden = [
    upstream.url,
    url.host,
    `:${url.port}`,
    process.execPath,
    DEMO_SERVER,
    ...ENV_NAMES,
    UPSTREAM_TOKEN,
    STDIO_TOKEN,
    LITERAL_ENV_VALUE,
    ENCRYPTION_KEY,
    ...upstream.sessionsIssued,
    ANSWER,
    requestState,
  ];
  const found = (text: string) => forbidden.filter((needle) => text.includes(needle));
  for (const entry of entries) {
    expect(found(entry.key), `key ${entry.key}`).toEqual([]);
    expect(found(entry.value), `value of ${entry.key}`).toEqual([]);
    // Key names are digests: no workspace, key id or source name in them.
    for (const name of [WORKSPACE, key.id, 'legacy', 'local']) expect(entry.key).not.toContain(name);
    expect(entry.pttl, `lifetime of ${entry.key}`).toBeGreaterThan(0);
  }
  expect(messages.length).toBeGreaterThan(0);
  for (const message of messages) expect(found(message), 'a pub/sub message').toEqual([]);

  // No value is the seal key: none verifies the requestState minted above (as text or base64).
  const [body, mac] = requestState.slice(requestState.indexOf('.') + 1).split('.') as [string, string];
  const candidates = entries.flatMap((entry) => {
    const raw = JSON.parse(entry.value) as unknown;
    const texts = typeof raw === 'string' ? [raw] : Object.values(raw as object).map(String);
    return texts.flatMap((text) => [Buffer.from(text), Buffer.from(text, 'base64')]);
  });
  for (const candidate of candidates)
    expect(createHmac('sha256', candidate).update(body).digest('base64url')).not.toBe(mac);
}, 60_000);
