// The introspection storm (issue 37, item 4), as the outside probe ran it: 3,000 random opaque bearer
// tokens of a real server's shape (oidc-provider's 43 characters), no other credential, against one
// gateway whose default workspace introspects at oidc-provider, while one signed-in caller (an opaque
// token of that server, answered once and cached) keeps calling GET /agent/tools. Prints the
// introspection calls the storm caused (counted at the endpoint), calls/s, the gateway's RSS before
// and after, the storm's answers, and the legitimate caller's p50/p95 with and without the storm. The
// gateway runs with its default budget (`introspectionMaxPerSecond` 50, `introspectionMaxConcurrent`
// 16) and no `tokenLength`. Never asserts; prints NOT MEASURED when the caller is not admitted.
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { startAuthServer } from '../infra/oidc-provider.js';
import { startBenchGateway } from './bench-gateway.js';
import { processTreeRssMiB } from './process-stats.js';

/** The canonical resource: a name in `aud`, not dialled. */
const RESOURCE = 'http://127.0.0.1:8080/mcp';
const SECRET = 'bench-introspection-secret-0123456789';
const STORM_TOKENS = 3000;
const STORM_CONCURRENCY = 64;

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

/** One caller, back to back, until `until()` says stop; latencies in ms and non-200 answers. */
async function legitimateCaller(
  url: string,
  token: string,
  until: () => boolean,
): Promise<{ latencies: number[]; failed: number }> {
  const dispatcher = new Agent({ connections: 1 });
  const latencies: number[] = [];
  let failed = 0;
  while (!until()) {
    const started = performance.now();
    const answer = await request(`${url}/agent/tools`, {
      dispatcher,
      headers: { authorization: `Bearer ${token}` },
    });
    await answer.body.arrayBuffer();
    latencies.push(performance.now() - started);
    if (answer.statusCode !== 200) failed += 1;
  }
  await dispatcher.close();
  return { latencies: latencies.sort((a, b) => a - b), failed };
}

/** The status of one GET /agent/tools with `token`, and the error code of a refusal's body. */
async function firstAnswer(
  url: string,
  token: string,
): Promise<{ status: number; code: string | undefined }> {
  const answer = await request(`${url}/agent/tools`, { headers: { authorization: `Bearer ${token}` } });
  const text = await answer.body.text();
  if (answer.statusCode === 200) return { status: 200, code: undefined };
  try {
    const code = (JSON.parse(text) as { error?: { code?: unknown } }).error?.code;
    return { status: answer.statusCode, code: typeof code === 'string' ? code : undefined };
  } catch {
    return { status: answer.statusCode, code: undefined };
  }
}

/** Every token once, `concurrency` at a time; the answer's status per token (0: no answer). */
async function storm(url: string, tokens: readonly string[]): Promise<number[]> {
  const dispatcher = new Agent({ connections: STORM_CONCURRENCY });
  const statuses = new Array<number>(tokens.length).fill(0);
  let next = 0;
  const worker = async () => {
    while (next < tokens.length) {
      const index = next;
      next += 1;
      try {
        const answer = await request(`${url}/agent/tools`, {
          dispatcher,
          headers: { authorization: `Bearer ${tokens[index] as string}` },
        });
        await answer.body.arrayBuffer();
        statuses[index] = answer.statusCode;
      } catch {
        statuses[index] = 0;
      }
    }
  };
  await Promise.all(Array.from({ length: STORM_CONCURRENCY }, worker));
  await dispatcher.close();
  return statuses;
}

function tally(statuses: readonly number[]): string {
  const counts = new Map<number, number>();
  for (const status of statuses) counts.set(status, (counts.get(status) ?? 0) + 1);
  return [...counts]
    .sort(([x], [y]) => x - y)
    .map(([status, n]) => `${status}×${n}`)
    .join(', ');
}

function line(label: string, result: { latencies: number[]; failed: number }): string {
  const l = result.latencies;
  return `  ${label.padEnd(34)} ${String(l.length).padStart(5)} requests  p50 ${percentile(l, 50).toFixed(2).padStart(7)} ms  p95 ${percentile(l, 95).toFixed(2).padStart(7)} ms  failed ${result.failed}`;
}

export async function oauthStormBench(): Promise<void> {
  const baselineMs = Number(process.env['BENCH_DURATION_MS'] ?? 4000);
  console.log('\n== OAuth introspection storm (issue 37): 3,000 random opaque tokens, no credential ==');
  console.log(
    `conditions: ${cpus().length} cores, load ${loadavg()[0]?.toFixed(2)}, loopback; oidc-provider 9 (in this process) introspects; gateway child process with default introspection bounds; storm c=${STORM_CONCURRENCY}; legitimate caller c=1 GET /agent/tools with a cached opaque token; baseline ${baselineMs} ms`,
  );
  const as = await startAuthServer({
    resources: { [RESOURCE]: { scope: 'mcp:read', format: 'opaque' } },
    clients: [
      {
        client_id: 'caller',
        client_secret: 'caller-secret-0123456789',
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
      },
      { client_id: 'gateway', client_secret: SECRET, grant_types: [], redirect_uris: [], response_types: [] },
    ],
  });
  const dir = await mkdtemp(join(tmpdir(), 'agw-oauth-storm-'));
  const gateway = await startBenchGateway(
    dir,
    'gateway',
    {
      // The shared resource (/mcp, /agent/*) admits the default workspace only, and an opaque
      // token's audience cannot be read before introspection, so on /agent/* it is the default
      // workspace's (D24). Without this, no workspace verifies it: every answer is 401, nothing is
      // introspected, and the storm measures nothing.
      oauth: { resource: RESOURCE, defaultWorkspace: 'bench' },
      workspaces: [
        {
          name: 'bench',
          identity: {
            issuers: [
              {
                issuer: as.issuer,
                introspection: { clientId: 'gateway', clientSecret: { env: 'AGW_INTROSPECTION_SECRET' } },
              },
            ],
            rules: [{ name: 'any', issuer: as.issuer }],
          },
        },
      ],
    },
    { ...process.env, AGW_INTROSPECTION_SECRET: SECRET },
  );
  try {
    const issued = await fetch(`${as.issuer}/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from('caller:caller-secret-0123456789').toString('base64')}`,
      },
      body: new URLSearchParams({ grant_type: 'client_credentials', resource: RESOURCE, scope: 'mcp:read' }),
    });
    const token = ((await issued.json()) as { access_token: string }).access_token;
    const calls = () => as.requests.get('/token/introspection') ?? 0;
    const pid = gateway.child.process.pid;
    // The caller must be admitted, or every number below describes refusals, not the storm.
    const first = await firstAnswer(gateway.url, token);
    if (first.status !== 200) {
      console.log(
        `  NOT MEASURED: the legitimate caller's warm-up request was answered ${first.status}${first.code === undefined ? '' : ` (${first.code})`}, not 200; introspection calls made ${calls()}`,
      );
      return;
    }
    // Warm: the caller's answer is cached; then the caller alone.
    const warm = await legitimateCaller(
      gateway.url,
      token,
      (() => {
        const end = performance.now() + 500;
        return () => performance.now() > end;
      })(),
    );
    const baselineEnd = performance.now() + baselineMs;
    const alone = await legitimateCaller(gateway.url, token, () => performance.now() > baselineEnd);
    const rssBefore = await processTreeRssMiB(pid);
    const tokens = Array.from({ length: STORM_TOKENS }, () => randomBytes(32).toString('base64url'));
    const callsBefore = calls();
    let stormDone = false;
    const started = performance.now();
    const [statuses, during] = await Promise.all([
      storm(gateway.url, tokens).finally(() => {
        stormDone = true;
      }),
      legitimateCaller(gateway.url, token, () => stormDone),
    ]);
    const seconds = (performance.now() - started) / 1000;
    const made = calls() - callsBefore;
    const rssAfter = await processTreeRssMiB(pid);
    console.log(line('caller alone (no storm)', alone));
    console.log(line('caller during the storm', during));
    console.log(
      `  storm: ${STORM_TOKENS} tokens in ${seconds.toFixed(1)} s; answers ${tally(statuses)}; introspection calls made ${made} (${(made / seconds).toFixed(1)} calls/s)`,
    );
    console.log(
      `  gateway RSS ${rssBefore?.toFixed(0) ?? '?'} MiB before the storm, ${rssAfter?.toFixed(0) ?? '?'} MiB after; warm-up ${warm.latencies.length} requests`,
    );
    // The tokens the endpoint called inactive, again: answered from the negative cache.
    const refused = tokens.filter((_, index) => statuses[index] === 401);
    const repeatBefore = calls();
    const again = await storm(gateway.url, refused);
    console.log(
      `  the ${refused.length} refused tokens again: ${calls() - repeatBefore} introspection calls; answers ${tally(again)}`,
    );
  } finally {
    await gateway.stop();
    await as.stop();
  }
}
