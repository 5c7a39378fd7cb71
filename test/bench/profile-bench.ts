// Hot-path profile (issue 13): `npm run bench -- profile`. A gateway runs under `node --cpu-prof`
// in front of a default v2-SDK upstream (tools/list says ttlMs 0) and one with cache hints, and
// one load worker (concurrency 1) sends each request shape back to back; the profile of the
// measured window is summarised as self time by owner and inclusive time of the gateway's
// functions, per request. `PROFILE_CASE=<shape prefix>` picks cases; `BENCH_PROFILE_KEEP=<dir>` keeps
// each .cpuprofile there (open it in Chrome DevTools); `BENCH_PROFILE_INTERVAL_US` sets the sampling interval (100). Prints numbers only; never asserts.
import { copyFile, mkdtemp, readdir, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKey } from '../../gateway/auth/index.js';
import { oneSourceConfig, startBenchGateway } from './bench-gateway.js';
import { startChild } from './child-process.js';
import { summariseProfile } from './cpu-profile.js';
import { formatResult, runLoad } from './load.js';
import { legacyRequest, modernRequest } from './mcp-shapes.js';

const TOP = 14;
/** The sampling interval (V8's default is 1000 µs: too coarse for a call of ~500 µs). */
const INTERVAL_US = Number(process.env['BENCH_PROFILE_INTERVAL_US'] ?? 100);

export async function profileBench(): Promise<void> {
  const durationMs = Number(process.env['BENCH_DURATION_MS'] ?? 4000);
  console.log('\n== MCP hot-path profile ==');
  console.log(
    `conditions: Node ${process.version}, ${cpus().length} CPUs, gateway under --cpu-prof every ${INTERVAL_US} µs (sampling adds overhead), logging and telemetry off, c=1, ${durationMs} ms per case after a 1 s warm-up; the summary covers the measured window`,
  );
  const only = process.env['PROFILE_CASE'];
  const cases = [
    { upstream: [] as string[], shape: 'tools/call, 2026 face', call: true, modern: true },
    { upstream: [] as string[], shape: 'tools/call, 2025 face', call: true, modern: false },
    { upstream: [] as string[], shape: 'tools/list ttlMs 0, 2026 face', call: false, modern: true },
    { upstream: ['--ttl-ms', '60000'], shape: 'tools/list cached, 2026 face', call: false, modern: true },
  ];
  for (const profileCase of cases.filter((c) => only === undefined || c.shape.startsWith(only))) {
    const dir = await mkdtemp(join(tmpdir(), 'agw-profile-'));
    const upstream = await startChild(
      ['dist/test/bench/default-upstream-main.js', ...profileCase.upstream],
      /"url"/,
    );
    const upstreamUrl = (JSON.parse(upstream.line) as { url: string }).url;
    const key = generateKey();
    const auth = { authorization: `Bearer ${key.key}` };
    try {
      const gateway = await startBenchGateway(
        dir,
        'gateway',
        oneSourceConfig(upstreamUrl, key),
        process.env,
        ['--cpu-prof', '--cpu-prof-dir', dir, '--cpu-prof-interval', String(INTERVAL_US)],
      );
      const params = profileCase.call ? { name: 'up__echo', arguments: { text: 'hello' } } : {};
      const method = profileCase.call ? 'tools/call' : 'tools/list';
      const shape = profileCase.modern
        ? modernRequest(method, params, profileCase.call ? 'up__echo' : undefined, auth)
        : legacyRequest(method, params, auth);
      const url = `${gateway.url}/mcp`;
      await runLoad('warm-up', url, { concurrency: 1, durationMs: 1000, ...shape });
      const result = await runLoad(profileCase.shape, url, { concurrency: 1, durationMs, ...shape });
      await gateway.stop();
      const file = (await readdir(dir)).find((name) => name.endsWith('.cpuprofile'));
      console.log(`\n${formatResult(result)}`);
      if (file === undefined) {
        console.log('  no profile written');
        continue;
      }
      const keep = process.env['BENCH_PROFILE_KEEP'];
      if (keep !== undefined) {
        await copyFile(join(dir, file), join(keep, `${profileCase.shape.replace(/\W+/g, '-')}.cpuprofile`));
        console.log(`  profile kept in ${keep}`);
      }
      const summary = await summariseProfile(join(dir, file), durationMs);
      const perRequest = (ms: number) => `${((ms / result.requests) * 1000).toFixed(0).padStart(5)} µs/req`;
      console.log(
        `  gateway CPU busy ${summary.busyMs.toFixed(0)} ms of the window (${perRequest(summary.busyMs)}), idle ${summary.idleMs.toFixed(0)} ms`,
      );
      console.log('  self time by owner:');
      for (const [owner, ms] of summary.selfByOwner.slice(0, TOP))
        console.log(
          `    ${((ms / summary.busyMs) * 100).toFixed(1).padStart(5)} %  ${perRequest(ms)}  ${owner}`,
        );
      console.log("  inclusive time of the gateway's functions:");
      for (const [name, ms] of summary.inclusiveGateway.slice(0, TOP))
        console.log(
          `    ${((ms / summary.busyMs) * 100).toFixed(1).padStart(5)} %  ${perRequest(ms)}  ${name}`,
        );
    } finally {
      await upstream.stop();
      await rm(dir, { recursive: true, force: true });
    }
  }
}
