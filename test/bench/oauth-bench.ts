// OAuth benchmark (issue 29), in one run: the same small `tools/call` (echo, 2026 face) through one
// gateway, signed in with an API key and with a JWT access token (ES256, JWKS cached), at c=1 and
// c=32, rounds interleaved and the median by throughput kept (and the gateway's CPU per call, from /proc); then JWKS rotation under c=32 load: the
// issuer publishes a second key and the callers switch to tokens signed with it mid-load, and the
// run counts failed requests and JWKS fetches. The issuer is a minimal one written here (metadata +
// JWKS, tokens minted with jose): the tests prove the real authorization server (oidc-provider); this
// measures the gateway's own cost. Prints numbers and conditions; never asserts.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { Agent, request } from 'undici';
import { generateKey } from '../../gateway/auth/index.js';
import { startBenchGateway } from './bench-gateway.js';
import { startChild } from './child-process.js';
import { formatResult, runLoad, type LoadResult } from './load.js';
import { modernRequest } from './mcp-shapes.js';
import { processCpuMs } from './process-stats.js';
import { medianByRate, middle } from './medians.js';

/** The canonical resource: a public URL, as behind an Ingress (it is a name in `aud`, not dialled). */
const RESOURCE = 'http://127.0.0.1:8080/mcp';

interface SigningKey {
  readonly kid: string;
  readonly privateKey: CryptoKey;
  readonly publicJwk: JWK;
}

async function newSigningKey(kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  return { kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' } };
}

/** A minimal issuer: RFC 8414 metadata and a JWKS whose keys can change; counts JWKS fetches. */
interface BenchIssuer {
  readonly issuer: string;
  keys: SigningKey[];
  jwksFetches: number;
  close(): Promise<void>;
}

async function startIssuer(first: SigningKey): Promise<BenchIssuer> {
  const state = { keys: [first], jwksFetches: 0 };
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const json = (value: unknown) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    if (path === '/jwks') {
      state.jwksFetches += 1;
      return json({ keys: state.keys.map((key) => key.publicJwk) });
    }
    if (path === '/.well-known/oauth-authorization-server' || path === '/.well-known/openid-configuration')
      return json({ issuer, jwks_uri: `${issuer}/jwks`, token_endpoint: `${issuer}/token` });
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    get keys() {
      return state.keys;
    },
    set keys(next: SigningKey[]) {
      state.keys = next;
    },
    get jwksFetches() {
      return state.jwksFetches;
    },
    set jwksFetches(value: number) {
      state.jwksFetches = value;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function mint(issuer: string, key: SigningKey, subject: string): Promise<string> {
  return new SignJWT({ scope: 'mcp:read mcp:write', client_id: 'bench-agent' })
    .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'at+jwt' })
    .setIssuer(issuer)
    .setAudience(RESOURCE)
    .setSubject(subject)
    .setIssuedAt()
    .setExpirationTime('2h')
    .sign(key.privateKey);
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** c=32 closed loop for `durationMs`; at `switchAtMs` the issuer adds `next` and callers switch to a
 * token signed with it. Counts answers that are not a 200 tool result. */
async function rotationRun(
  url: string,
  issuer: BenchIssuer,
  before: string,
  next: SigningKey,
  durationMs: number,
  switchAtMs: number,
): Promise<{ requests: number; failed: number; fetchesAfterSwitch: number; failedAfterSwitch: number }> {
  const dispatcher = new Agent({ connections: 32, pipelining: 1 });
  const after = await mint(issuer.issuer, next, 'bench-user');
  let token = before;
  let switched = false;
  let fetchesAtSwitch = 0;
  let requests = 0;
  let failed = 0;
  let failedAfterSwitch = 0;
  const started = Date.now();
  const switcher = setTimeout(() => {
    issuer.keys = [...issuer.keys, next];
    fetchesAtSwitch = issuer.jwksFetches;
    token = after;
    switched = true;
  }, switchAtMs);
  let id = 0;
  const worker = async () => {
    while (Date.now() - started < durationMs) {
      const shape = modernRequest(
        'tools/call',
        { name: 'up__echo', arguments: { text: 'hello' } },
        'up__echo',
        bearer(token),
      );
      const sentAfterSwitch = switched;
      id += 1;
      try {
        const answer = await request(url, {
          method: 'POST',
          headers: shape.headers,
          body: shape.body(id),
          dispatcher,
        });
        const text = await answer.body.text();
        const ok = answer.statusCode === 200 && text.includes('"result"');
        requests += 1;
        if (!ok) {
          failed += 1;
          if (sentAfterSwitch) failedAfterSwitch += 1;
        }
      } catch {
        requests += 1;
        failed += 1;
        if (sentAfterSwitch) failedAfterSwitch += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
  clearTimeout(switcher);
  await dispatcher.close();
  return { requests, failed, failedAfterSwitch, fetchesAfterSwitch: issuer.jwksFetches - fetchesAtSwitch };
}

export async function oauthBench(): Promise<void> {
  const durationMs = Number(process.env['BENCH_DURATION_MS'] ?? 4000);
  const rounds = Number(process.env['BENCH_ROUNDS'] ?? 3);
  console.log('\n== OAuth benchmark (issue 29): API key vs JWT access token, and JWKS rotation ==');
  console.log(
    `conditions: ${cpus().length} cores, load ${loadavg()[0]?.toFixed(2)}, ${durationMs} ms per point, ${rounds} rounds interleaved (median by req/s), loopback, 2026-face tools/call of a v2-SDK echo upstream, audit trail on (stderr)`,
  );
  const firstKey = await newSigningKey('bench-1');
  const issuer = await startIssuer(firstKey);
  const upstream = await startChild(['dist/test/bench/default-upstream-main.js'], /"url"/);
  const upstreamUrl = (JSON.parse(upstream.line) as { url: string }).url;
  const dir = await mkdtemp(join(tmpdir(), 'agw-oauth-bench-'));
  const key = generateKey();
  const gateway = await startBenchGateway(dir, 'gateway', {
    // The shared resource's tokens go to the default workspace (D24), as in examples/oidc.yaml.
    oauth: { resource: RESOURCE, scopesSupported: ['mcp:read', 'mcp:write'], defaultWorkspace: 'bench' },
    workspaces: [
      {
        name: 'bench',
        mcpSources: [{ name: 'up', transport: 'streamable-http', url: upstreamUrl }],
        keys: [{ id: key.id, hash: key.hash, access: 'write' }],
        identity: {
          issuers: [{ issuer: issuer.issuer }],
          rules: [{ name: 'agents', issuer: issuer.issuer, access: 'write' }],
        },
      },
    ],
  });
  try {
    const url = `${gateway.url}/mcp`;
    const jwt = await mint(issuer.issuer, firstKey, 'bench-user');
    const credentials = { 'API key': bearer(key.key), 'JWT (cached JWKS)': bearer(jwt) };
    // One call each first: both must answer a tool result, or the comparison means nothing.
    for (const [label, headers] of Object.entries(credentials)) {
      const shape = modernRequest(
        'tools/call',
        { name: 'up__echo', arguments: { text: 'hello' } },
        'up__echo',
        headers,
      );
      const answer = await request(url, { method: 'POST', headers: shape.headers, body: shape.body(0) });
      const text = await answer.body.text();
      if (answer.statusCode !== 200 || !text.includes('"result"')) {
        console.log(`  ${label}: the first call failed (${answer.statusCode}); benchmark skipped`);
        return;
      }
    }
    for (const concurrency of [1, 32]) {
      const results = new Map<string, LoadResult[]>();
      // The gateway's CPU time per call (/proc), which run-to-run noise in latency does not move.
      const cpuPerCall = new Map<string, number[]>();
      for (let round = 0; round < rounds; round += 1) {
        const order = Object.entries(credentials);
        if (round % 2 === 1) order.reverse();
        for (const [label, headers] of order) {
          const shape = modernRequest(
            'tools/call',
            { name: 'up__echo', arguments: { text: 'hello' } },
            'up__echo',
            headers,
          );
          await runLoad('warm-up', url, { concurrency, durationMs: 500, ...shape });
          const cpuBefore = await processCpuMs(gateway.child.process.pid);
          const result = await runLoad(label, url, { concurrency, durationMs, ...shape });
          const cpuAfter = await processCpuMs(gateway.child.process.pid);
          results.set(label, [...(results.get(label) ?? []), result]);
          if (cpuBefore !== undefined && cpuAfter !== undefined && result.requests > 0)
            cpuPerCall.set(label, [
              ...(cpuPerCall.get(label) ?? []),
              ((cpuAfter - cpuBefore) * 1000) / result.requests,
            ]);
        }
      }
      const keyResult = medianByRate(results.get('API key') ?? []);
      const jwtResult = medianByRate(results.get('JWT (cached JWKS)') ?? []);
      console.log(formatResult(keyResult));
      console.log(formatResult(jwtResult));
      const keyCpu = middle(cpuPerCall.get('API key') ?? []);
      const jwtCpu = middle(cpuPerCall.get('JWT (cached JWKS)') ?? []);
      const cpu =
        keyCpu === undefined || jwtCpu === undefined
          ? 'gateway CPU per call not read (no /proc)'
          : `gateway CPU per call ${keyCpu.toFixed(0)} µs with the key, ${jwtCpu.toFixed(0)} µs with the JWT (${(jwtCpu - keyCpu).toFixed(0)} µs; median of the rounds)`;
      console.log(
        `  c=${concurrency}: JWT adds ${(jwtResult.p50Ms - keyResult.p50Ms).toFixed(3)} ms at p50 (goal ≤ 0.05), ${(jwtResult.p99Ms - keyResult.p99Ms).toFixed(3)} ms at p99; throughput ×${(jwtResult.rps / keyResult.rps).toFixed(3)} of the key path; ${cpu}`,
      );
    }
    const fetchesBefore = issuer.jwksFetches;
    const rotation = await rotationRun(url, issuer, jwt, await newSigningKey('bench-2'), 6000, 2000);
    console.log(
      `JWKS rotation under c=32 load (new key published and used at 2 s of 6 s): ${rotation.requests} requests, ${rotation.failed} failed (${rotation.failedAfterSwitch} after the switch; goal 0), ${rotation.fetchesAfterSwitch} JWKS fetches after the switch (goal 1), ${issuer.jwksFetches - fetchesBefore} during the whole run`,
    );
  } finally {
    await gateway.stop();
    await upstream.stop();
    await issuer.close();
  }
}
