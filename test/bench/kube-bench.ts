// Kubernetes config-plane benchmark (issue 9), on a real kube-apiserver + etcd started for it
// (test/infra/control-plane.ts) with real `agent-gateway operator` and `serve --kubernetes`
// processes. Prints numbers and conditions; never asserts.
//  1. Revocation and config propagation latency to every gateway, 20 tries, with 1 and 3 gateways:
//     from the `kubectl patch` returning to the first 401 (revoke) / 200 (un-revoke) on each gateway.
//  2. Reconcile throughput: 50 Workspaces and 1,000 ApiKeys applied at once → all Ready and served.
//  3. The gateway with 20,000 keys in one workspace: memory and reload time (objects written in
//     the rendered format directly, so the gateway side is measured on its own).
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { generateKey } from '../../gateway/auth/index.js';
import { renderWorkspace } from '../../gateway/config/kube/index.js';
import { startControlPlane } from '../infra/control-plane.js';
import { asObjects, Cluster, until } from './bench-cluster.js';

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN) / 1024;
}

function spread(values: readonly number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
  return `p50 ${at(0.5).toFixed(0)} ms, max ${at(1).toFixed(0)} ms (n=${sorted.length})`;
}

const status = async (url: string, key: string) =>
  (await fetch(`${url}/agent/tools`, { headers: { authorization: `Bearer ${key}` } })).status;

async function propagation(gatewayCount: number): Promise<void> {
  const cluster = new Cluster(await startControlPlane());
  try {
    await cluster.kubectl(['create', 'namespace', 'tenant']);
    await cluster.kubectl(['create', 'namespace', 'agw']);
    await cluster.kubectl(['apply', '-n', 'tenant', '-f', 'examples/kubernetes/workspace.yaml']);
    await cluster.kubectl(['apply', '-n', 'tenant', '-f', 'examples/kubernetes/apikey.yaml']);
    await cluster.operator();
    const gateways = [];
    for (let i = 0; i < gatewayCount; i += 1) gateways.push(await cluster.gateway());
    const key = await cluster.issuedKey('tenant', 'ci-reader');
    for (const g of gateways) await until(async () => (await status(g.url, key)) === 200);
    const revoke: number[] = [];
    const restore: number[] = [];
    const patch = (revoked: boolean) =>
      cluster.kubectl([
        'patch',
        'apikey',
        'ci-reader',
        '-n',
        'tenant',
        '--type',
        'merge',
        '-p',
        JSON.stringify({ spec: { revoked } }),
      ]);
    for (let attempt = 0; attempt < 20; attempt += 1) {
      for (const [revoked, expected, into] of [
        [true, 401, revoke],
        [false, 200, restore],
      ] as const) {
        await patch(revoked);
        const patched = performance.now();
        await Promise.all(
          gateways.map(async (g) => {
            await until(async () => (await status(g.url, key)) === expected, 30_000, 5);
            into.push(performance.now() - patched);
          }),
        );
      }
    }
    console.log(
      `propagation with ${gatewayCount} gateway${gatewayCount === 1 ? '' : 's'}, 20 tries, per gateway:`,
    );
    console.log(`  revocation (patch returned → first 401):      ${spread(revoke)}`);
    console.log(`  config change (un-revoke → first 200):        ${spread(restore)}`);
  } finally {
    await cluster.stop();
  }
}

async function convergence(): Promise<void> {
  const cluster = new Cluster(await startControlPlane());
  try {
    await cluster.kubectl(['create', 'namespace', 'tenant']);
    await cluster.kubectl(['create', 'namespace', 'agw']);
    await cluster.operator();
    const gateway = await cluster.gateway();
    const started = performance.now();
    await cluster.applyWorkspacesWithKeys('tenant', 50, 20);
    const applied = performance.now();
    await cluster.apiKeysReady('tenant', 1000);
    const ready = performance.now();
    const last = await cluster.issuedKey('tenant', 'key-49-19');
    await until(async () => (await status(gateway.url, last)) === 200, 120_000, 50);
    const served = performance.now();
    console.log(
      'reconcile throughput: 50 Workspaces + 1,000 ApiKeys applied at once (server-side apply, one kubectl)',
    );
    console.log(`  kubectl apply returned after ${((applied - started) / 1000).toFixed(1)} s`);
    console.log(`  all 1,000 ApiKeys Ready=True after ${((ready - started) / 1000).toFixed(1)} s`);
    console.log(`  last key served by the gateway after ${((served - started) / 1000).toFixed(1)} s`);
  } finally {
    await cluster.stop();
  }
}

async function largeWorkspace(): Promise<void> {
  const cluster = new Cluster(await startControlPlane());
  try {
    await cluster.kubectl(['create', 'namespace', 'agw']);
    const gateway = await cluster.gateway();
    await new Promise((r) => setTimeout(r, 1000));
    const idle = rssMb(gateway.pid);
    const keys = Array.from({ length: 20_000 }, () => generateKey());
    const write = async (revisionNote: string) => {
      const rendered = renderWorkspace({
        name: 'big',
        namespace: 'tenant',
        displayName: revisionNote,
        mcpSources: [],
        dataSources: [],
        keys: keys.map((k) => ({ id: k.id, hash: k.hash, access: 'read' })),
        credentials: new Map(),
      });
      const items = asObjects(rendered.parts);
      const started = performance.now();
      await cluster.kubectl(
        ['apply', '--server-side', '--force-conflicts', '-f', '-'],
        JSON.stringify({ apiVersion: 'v1', kind: 'List', items }),
      );
      return { parts: rendered.parts.length, started };
    };
    const first = await write('first');
    const probe = keys[19_999] as (typeof keys)[number];
    await until(async () => (await status(gateway.url, probe.key)) === 200, 120_000, 20);
    const firstLoad = performance.now() - first.started;
    const loaded = rssMb(gateway.pid);
    // A reload: the same 20,000 keys, one revoked.
    const revoked = keys[0] as (typeof keys)[number];
    const before = await status(gateway.url, revoked.key);
    const index = keys.indexOf(revoked);
    const again = renderWorkspace({
      name: 'big',
      namespace: 'tenant',
      displayName: 'second',
      mcpSources: [],
      dataSources: [],
      keys: keys.map((k, i) => ({ id: k.id, hash: k.hash, access: 'read', revoked: i === index })),
      credentials: new Map(),
    });
    const items = asObjects(again.parts);
    const started = performance.now();
    await cluster.kubectl(
      ['apply', '--server-side', '--force-conflicts', '-f', '-'],
      JSON.stringify({ apiVersion: 'v1', kind: 'List', items }),
    );
    await until(async () => (await status(gateway.url, revoked.key)) === 401, 120_000, 20);
    const reload = performance.now() - started;
    console.log(`one workspace with 20,000 keys (${first.parts} rendered objects, gateway alone):`);
    console.log(
      `  gateway RSS: ${idle.toFixed(0)} MB idle → ${loaded.toFixed(0)} MB with the workspace (+${(loaded - idle).toFixed(0)} MB)`,
    );
    console.log(`  first load (kubectl apply start → last key served): ${firstLoad.toFixed(0)} ms`);
    console.log(`  reload with one key revoked (apply start → 401; was ${before}): ${reload.toFixed(0)} ms`);
  } finally {
    await cluster.stop();
  }
}

export async function kubeBench(): Promise<void> {
  console.log('\n== Kubernetes config plane benchmark ==');
  console.log(
    `conditions: Node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), kube-apiserver 1.34.4 + etcd 3.6.16 on loopback (test/infra/kube-test-env.sh), operator and gateways as separate processes polling every 5–20 ms`,
  );
  await propagation(1);
  await propagation(3);
  await convergence();
  await largeWorkspace();
}
