// The console's data endpoints (issue 25): GET /agent/usage and GET /agent/activity on two real
// gateway processes sharing a real redis-server (limits shared, activity per replica), two
// workspaces with their own keys, a real upstream and a files data source. Usage moves with
// requests made on either replica, a refused rate or quota reads as remaining 0 and shows in the
// activity as its error class, each workspace sees only itself, and the logs carry no key or content.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeGatewayConfig } from '../bench/bench-gateway.js';
import { startChild, type Child } from '../bench/child-process.js';
import { startModernServer, type RunningModernServer } from '../fixtures/upstreams/modern-server.js';
import { startRedis, type RunningRedis } from '../infra/redis-server.js';
import { httpSource, keyRecord, newKeys } from '../support/gateway-document.js';
import { get, mcpPost } from '../support/gateway-harness.js';
import { startGatewayProcesses, type GatewayProcess } from '../support/gateway-processes.js';
import { testEncryption, testEncryptionEnv } from '../support/redis-encryption.js';
import { until } from '../support/until.js';

const SECRET_WORD = 'quokkazanzibar';
const [writer, meter, reader, burst, betaKey] = newKeys(5);
let redis: RunningRedis;
let upstream: RunningModernServer;
let dir: string;
let a: { url: string; child: Child };
let b: GatewayProcess;
const logs: string[] = [];

interface Limit {
  policy: string;
  kind: string;
  limit: number;
  window_seconds: number;
  used: number;
  remaining: number;
  resets_at: string;
}
interface Usage {
  key: Record<string, unknown>;
  limits: Limit[];
}
interface Series {
  route: string;
  error_class: string;
  buckets: { start: string; count: number; p50_ms: number | null; p95_ms: number | null }[];
}
interface Activity {
  window_seconds: number;
  bucket_seconds: number;
  scope: string;
  now: string;
  series: Series[];
  sync: Record<string, unknown>[];
}

beforeAll(async () => {
  redis = await startRedis();
  upstream = await startModernServer();
  dir = await mkdtemp(join(tmpdir(), 'agw-console-data-'));
  const docs = join(dir, 'docs');
  const betaDocs = join(dir, 'beta-docs');
  for (const [folder, name, text] of [
    [docs, 'a.md', `# Alpha\n\nThe ${SECRET_WORD} note lives in alpha.\n`],
    [docs, 'b.md', '# Bravo\n\nA second page.\n'],
    [docs, 'c.md', '# Charlie\n\nA third page.\n'],
    [betaDocs, 'x.md', '# Beta\n\nBeta only.\n'],
  ] as const) {
    await import('node:fs/promises').then((fs) => fs.mkdir(folder, { recursive: true }));
    await writeFile(join(folder, name), text);
  }
  const configPath = await writeGatewayConfig(dir, {
    sharedState: { redis: { url: { env: 'REDIS_URL' }, commandTimeoutMs: 250 }, encryption: testEncryption },
    workspaces: [
      {
        name: 'alpha',
        limits: { requestsPerMinute: 100_000 },
        mcpSources: [httpSource('up', upstream.url)],
        dataSources: [{ name: 'docs', type: 'files', path: docs, watch: false }],
        keys: [
          keyRecord(writer, { access: 'write' }),
          // 30 a minute: one cell every 2 s, so a few requests in a row read exactly.
          keyRecord(meter, {
            name: 'alpha-meter',
            access: 'write',
            limits: { requestsPerMinute: 30, toolCallsPerDay: 2, searchesPerDay: 100 },
          }),
          keyRecord(reader, { sources: ['docs'], expiresAt: '2099-01-01T00:00:00.000Z' }),
          keyRecord(burst, { limits: { requestsPerMinute: 20 } }),
        ],
      },
      {
        name: 'beta',
        limits: { requestsPerMinute: 1000 },
        dataSources: [{ name: 'beta-docs', type: 'files', path: betaDocs, watch: false }],
        keys: [keyRecord(betaKey, { limits: { requestsPerSecond: 50 } })],
      },
    ],
  });
  const env = { ...process.env, ...testEncryptionEnv, REDIS_URL: redis.url };
  // Replica A logs at debug level, and everything it writes is kept for the log check.
  const child = await startChild(
    ['bin/agent-gateway.js', 'serve', '--config', configPath, '--log-level', 'debug'],
    /listening on/,
    'stderr',
    env,
  );
  for (const stream of [child.process.stdout, child.process.stderr])
    stream?.on('data', (chunk: Buffer) => logs.push(chunk.toString('utf8')));
  a = { url: /listening on (\S+)/.exec(child.line)?.[1] as string, child };
  [b] = (await startGatewayProcesses(configPath, 1, env)) as [GatewayProcess];
  await until('alpha docs synced on A', async () => {
    const sync = (await activity(a.url, writer.key)).sync;
    return sync.some((s) => s['source'] === 'docs' && s['finished_at'] !== null) ? true : undefined;
  });
}, 90_000);

afterAll(async () => {
  await a?.child.stop();
  await b?.child.stop();
  await upstream?.close();
  await redis?.stop();
  await rm(dir, { recursive: true, force: true });
});

async function json<T>(response: Response): Promise<T> {
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as T;
}
const usage = async (url: string, key: string) =>
  json<Usage>(await get(`${url}/agent/usage?response_format=json`, key));
const activity = async (url: string, key: string, query = '') =>
  json<Activity>(await get(`${url}/agent/activity?response_format=json${query}`, key));
const limitOf = (body: Usage, policy: string) => body.limits.find((l) => l.policy === policy)!;
const total = (body: Activity, route: string, errorClass: string) =>
  body.series
    .filter((s) => s.route === route && s.error_class === errorClass)
    .flatMap((s) => s.buckets)
    .reduce((sum, bucket) => sum + bucket.count, 0);
const toolCall = (url: string, key: string, text: string) =>
  mcpPost(url, key, { method: 'tools/call', params: { name: 'up__echo', arguments: { text } }, id: 1 });

describe('GET /agent/usage', () => {
  it('console:usage-endpoint — JSON and TOON: the caller’s own key and every rate and quota that applies to it', async () => {
    const body = await usage(a.url, meter.key);
    expect(body.key).toEqual({
      fingerprint: expect.stringMatching(/^[0-9a-f]{12}$/) as unknown,
      name: 'alpha-meter',
      access: 'write',
      tools: null,
      sources: null,
      expires_at: null,
    });
    expect(body.limits.map((l) => [l.policy, l.kind, l.limit, l.window_seconds])).toEqual([
      ['key-minute', 'rate', 30, 60],
      ['key-tool-calls-day', 'quota', 2, 86_400],
      ['key-searches-day', 'quota', 100, 86_400],
      ['workspace-minute', 'rate', 100_000, 60],
    ]);
    // This request passed the limits first, so the rates include it; the quotas are untouched.
    expect(limitOf(body, 'key-minute').used).toBeGreaterThanOrEqual(1);
    expect(limitOf(body, 'key-tool-calls-day')).toMatchObject({ used: 0, remaining: 2 });
    const midnight = new Date(Math.floor(Date.now() / 86_400_000 + 1) * 86_400_000).toISOString();
    expect(
      Math.abs(Date.parse(limitOf(body, 'key-tool-calls-day').resets_at) - Date.parse(midnight)),
    ).toBeLessThan(5_000);
    const readerBody = await usage(b.url, reader.key);
    expect(readerBody.key).toMatchObject({
      access: 'read',
      sources: ['docs'],
      expires_at: '2099-01-01T00:00:00.000Z',
    });
    expect(readerBody.key).not.toHaveProperty('name');
    expect(readerBody.limits.map((l) => l.policy)).toEqual(['workspace-minute']);
    const toon = await get(`${a.url}/agent/usage`, meter.key);
    expect(toon.status).toBe(200);
    expect(toon.headers.get('content-type')).toContain('text/toon');
    const text = await toon.text();
    expect(text).toContain('access: write');
    expect(text).toMatch(/limits\[4\]\{policy,kind,limit,window_seconds,used,remaining,resets_at\}:/);
    expect((await get(`${a.url}/agent/usage`)).status).toBe(401);
  });

  it('console:usage-moves — usage moves with requests on either replica: rates count every request, quotas only their kind', async () => {
    const before = await usage(a.url, meter.key);
    for (let i = 0; i < 2; i += 1) expect((await toolCall(b.url, meter.key, `call ${i}`)).status).toBe(200);
    const search = await fetch(`${b.url}/agent/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${meter.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'page' }),
    });
    expect(search.status).toBe(200);
    const after = await usage(a.url, meter.key);
    // Two calls, one search and this usage request, counted once across the replicas (Redis); a
    // rate's spent burst drains one cell every 2 s, so a slow machine may see one fewer.
    const moved = limitOf(after, 'key-minute').used - limitOf(before, 'key-minute').used;
    expect(moved).toBeGreaterThanOrEqual(3);
    expect(moved).toBeLessThanOrEqual(4);
    expect(limitOf(after, 'key-tool-calls-day')).toMatchObject({ used: 2, remaining: 0 });
    expect(limitOf(after, 'key-searches-day')).toMatchObject({ used: 1, remaining: 99 });
    // The quota refuses the third call; the refusal adds nothing, and usage still reads it as spent.
    const refused = await toolCall(a.url, meter.key, 'one too many');
    expect(refused.status).toBe(429);
    const spent = await usage(b.url, meter.key);
    expect(limitOf(spent, 'key-tool-calls-day')).toMatchObject({ used: 2, remaining: 0 });
    const seen = await activity(a.url, writer.key);
    expect(total(seen, '/mcp', 'request')).toBe(1);
  });

  it('console:usage-refused-rate — a spent rate reads used = limit, remaining 0, and the usage endpoint itself is counted against it', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 24; i += 1) statuses.push((await get(`${a.url}/agent/tools`, burst.key)).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(20);
    expect(statuses.filter((s) => s === 429)).toHaveLength(4);
    // The usage endpoint is refused like any other route while the rate is spent.
    const refused = await get(`${b.url}/agent/usage?response_format=json`, burst.key);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    // One interval (3 s) later one request fits again: this one, which leaves nothing.
    await new Promise((resolve) => setTimeout(resolve, 3_200));
    const body = await usage(b.url, burst.key);
    const minute = limitOf(body, 'key-minute');
    expect(minute).toMatchObject({ used: 20, remaining: 0, limit: 20 });
    expect(Date.parse(minute.resets_at) - Date.now()).toBeGreaterThan(50_000);
    expect(Date.parse(minute.resets_at) - Date.now()).toBeLessThanOrEqual(61_000);
    const seen = await activity(a.url, writer.key);
    expect(total(seen, '/agent/tools', 'request')).toBe(4);
    expect(total(await activity(b.url, writer.key), '/agent/usage', 'request')).toBe(1);
  });
});

describe('GET /agent/activity', () => {
  it('console:activity-endpoint — JSON and TOON: the last hour by route and error class in one-minute buckets, per replica', async () => {
    const before = await activity(a.url, writer.key);
    expect(before).toMatchObject({ window_seconds: 3600, bucket_seconds: 60, scope: 'replica' });
    expect(Math.abs(Date.parse(before.now) - Date.now())).toBeLessThan(5_000);
    for (const series of before.series) {
      expect(series.buckets).toHaveLength(60);
      const starts = series.buckets.map((bucket) => Date.parse(bucket.start));
      expect(starts[59]! - starts[0]!).toBe(59 * 60_000);
      expect(starts[59]!).toBeLessThanOrEqual(Date.now());
      for (const bucket of series.buckets)
        if (bucket.count > 0) expect(bucket.p95_ms).toBeGreaterThanOrEqual(bucket.p50_ms!);
        else expect(bucket).toMatchObject({ p50_ms: null, p95_ms: null });
    }
    for (let i = 0; i < 5; i += 1) expect((await get(`${a.url}/agent/tools`, writer.key)).status).toBe(200);
    // A path no route serves is `unmatched`; a 404 of a route (an unknown source id) is its route's.
    expect((await get(`${a.url}/agent/nothing-here`, writer.key)).status).toBe(404);
    expect((await get(`${a.url}/agent/sources/nope`, writer.key)).status).toBe(404);
    const after = await activity(a.url, writer.key);
    expect(total(after, '/agent/tools', 'none') - total(before, '/agent/tools', 'none')).toBe(5);
    expect(total(after, '/agent/activity', 'none') - total(before, '/agent/activity', 'none')).toBe(1);
    expect(total(after, 'unmatched', 'request') - total(before, 'unmatched', 'request')).toBe(1);
    expect(
      total(after, '/agent/sources/:id', 'request') - total(before, '/agent/sources/:id', 'request'),
    ).toBe(1);
    // Replica B counted none of A's requests.
    const other = await activity(b.url, writer.key);
    expect(total(other, '/agent/tools', 'none')).toBe(0);
    const toon = await get(`${a.url}/agent/activity`, writer.key);
    expect(toon.headers.get('content-type')).toContain('text/toon');
    const text = await toon.text();
    expect(text).toContain('scope: replica');
    expect(text).toMatch(/buckets\[60\]\{start,count,p50_ms,p95_ms\}:/);
  });

  it('console:activity-read-key — a read key sees the same workspace-level activity as a write key', async () => {
    const byWriter = await activity(a.url, writer.key);
    const byReader = await activity(a.url, reader.key);
    const tools = (body: Activity) => body.series.filter((s) => s.route === '/agent/tools');
    expect(tools(byReader)).toEqual(tools(byWriter));
    expect(tools(byReader).length).toBeGreaterThan(0);
  });

  it('console:activity-sync — data-source sync state: documents, chunks, start, finish, progress', async () => {
    const body = await activity(a.url, reader.key);
    expect(body.sync).toEqual([
      {
        source: 'docs',
        state: 'idle',
        documents: 3,
        chunks: expect.any(Number) as unknown,
        started_at: expect.any(String) as unknown,
        finished_at: expect.any(String) as unknown,
        progress: null,
        error_class: null,
        // Idle (issue 39): what is indexed, done of done; no phase, rate or time left.
        phase: null,
        documents_done: 3,
        documents_total: 3,
        chunks_done: expect.any(Number) as unknown,
        chunks_total: expect.any(Number) as unknown,
        rate_per_s: null,
        eta_s: null,
      },
    ]);
    const docs = body.sync[0]!;
    expect(docs['chunks']).toBeGreaterThanOrEqual(3);
    expect(docs['chunks_done']).toBe(docs['chunks']);
    expect(docs['chunks_total']).toBe(docs['chunks']);
    expect(Date.parse(docs['finished_at'] as string)).toBeGreaterThanOrEqual(
      Date.parse(docs['started_at'] as string),
    );
  });
});

describe('two workspaces', () => {
  it('console:data-isolation — each key sees only its own workspace: key, limits, activity, sync; no parameter reaches another', async () => {
    const betaBefore = await activity(b.url, betaKey.key);
    for (let i = 0; i < 3; i += 1)
      expect((await get(`${b.url}/agent/sources`, betaKey.key)).status).toBe(200);
    const seen = await activity(b.url, betaKey.key, '&workspace=alpha');
    const routes = new Set(seen.series.map((s) => s.route));
    expect(routes.has('/agent/tools')).toBe(false);
    expect(routes.has('/mcp')).toBe(false);
    expect(total(seen, '/agent/sources', 'none') - total(betaBefore, '/agent/sources', 'none')).toBe(3);
    expect(seen.sync.map((s) => s['source'])).toEqual(['beta-docs']);
    // Alpha's view on the same replica has none of beta's source listings.
    const alphaSeen = await activity(b.url, writer.key);
    expect(total(alphaSeen, '/agent/sources', 'none')).toBe(0);
    expect(alphaSeen.sync.map((s) => s['source'])).toEqual(['docs']);
    const betaUsage = await usage(a.url, betaKey.key);
    const writerUsage = await usage(a.url, writer.key);
    expect(betaUsage.key['fingerprint']).not.toBe(writerUsage.key['fingerprint']);
    expect(betaUsage.limits.map((l) => [l.policy, l.limit])).toEqual([
      ['key-second', 50],
      ['workspace-minute', 1000],
    ]);
    // Beta's workspace counter holds beta's requests only (alpha made dozens this minute).
    expect(limitOf(betaUsage, 'workspace-minute').used).toBeLessThan(20);
    const query = await get(
      `${a.url}/agent/usage?response_format=json&workspace=alpha&key=${writer.id}`,
      betaKey.key,
    );
    expect(((await query.json()) as Usage).key['fingerprint']).toBe(betaUsage.key['fingerprint']);
  });
});

describe('logs', () => {
  it('console:data-no-content-in-logs — the console endpoints log neither keys nor content', async () => {
    const search = await fetch(`${a.url}/agent/search?response_format=json`, {
      method: 'POST',
      headers: { authorization: `Bearer ${writer.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: SECRET_WORD }),
    });
    expect(await search.text()).toContain(SECRET_WORD);
    await usage(a.url, writer.key);
    await activity(a.url, reader.key);
    await until('the usage request logged', () =>
      Promise.resolve(logs.join('').includes('/agent/usage') ? true : undefined),
    );
    const text = logs.join('');
    expect(text).toContain('/agent/activity');
    for (const key of [writer, reader, burst, betaKey]) {
      expect(text).not.toContain(key.key);
      expect(text).not.toContain(key.key.slice(-16));
    }
    expect(text).not.toContain(SECRET_WORD);
  });
});
