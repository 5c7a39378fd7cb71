// `npm run bench -- workloads` (issue 40), run by vitest on the pod tests' one-node cluster (its
// global setup builds and imports the image): no timing is asserted, the numbers are printed as
// `[bench]` lines for test/bench/workloads-bench.ts.
//   1. Cold start from zero: the demo MCP server over stdio (our image, behind the bridge) with
//      spec.run.scaleToZero; each round waits for zero pods, then times one tools/call through a
//      gateway pod until it is answered (wake request, scale-up, pod start, bridge ready, call).
//   2. Call overhead: one gateway process on the host with two sources of the same demo server — a
//      local stdio child, and the workload's Service (the host reaches ClusterIPs through
//      kube-proxy) with its minted token — tools/call at c=1 and c=8, alternating rounds.
//   3. Memory of one workload pod: the kubelet's working set for the pod and each container.
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'vitest';
import { generateKey } from '../../gateway/auth/index.js';
import {
  allPodsReady,
  helmOk,
  images,
  kubectlOk,
  pods,
  serviceUrl,
  waitFor,
} from '../e2e/cluster/cluster-context.js';
import { callDemoAdd, issuedKey } from '../e2e/cluster/cluster-fixtures.js';
import { startBenchGateway } from './bench-gateway.js';
import { runLoad, type LoadResult } from './load.js';
import { modernRequest } from './mcp-shapes.js';
import { medianByRate, middle } from './medians.js';

const CHART = 'charts/agent-gateway';
const NS = 'agw-bench-workloads';
const DEMO = '/app/dist/examples/demo-mcp-server/main.js';
const ROUNDS = Number(process.env['AGW_BENCH_ROUNDS'] ?? 3);
const DURATION_MS = Number(process.env['AGW_BENCH_DURATION_MS'] ?? 5000);

function say(line: string): void {
  process.stdout.write(`[bench] ${line}\n`);
}

const gatewayRepo = () => images().gateway.replace(/:[^:/]+$/, '');
const gatewayTag = () => /:([^:/]+)$/.exec(images().gateway)?.[1] ?? '0.1.0';

function imagePrefix(): string {
  const repo = gatewayRepo();
  return repo.includes('/') ? repo.slice(0, repo.lastIndexOf('/') + 1) : 'docker.io/library/';
}

function source(name: string, scaleToZero?: Record<string, number>): Record<string, unknown> {
  return {
    apiVersion: 'agentgateway.dev/v1alpha1',
    kind: 'McpSource',
    metadata: { name },
    spec: {
      workspaceRef: { name: 'acme' },
      run: {
        image: images().gateway,
        transport: 'stdio',
        command: ['/usr/local/bin/node', DEMO],
        ...(scaleToZero === undefined ? {} : { scaleToZero }),
      },
    },
  };
}

interface PodStats {
  podRef: { name: string; namespace: string };
  memory?: { workingSetBytes?: number };
  containers?: { name: string; memory?: { workingSetBytes?: number } }[];
}

const mib = (bytes: number | undefined) => (bytes === undefined ? '?' : (bytes / 1048576).toFixed(1));

describe('workloads bench', () => {
  it('prints cold start, call overhead and pod memory', async () => {
    say(
      `conditions: ${cpus().length} cores, load ${loadavg()[0]?.toFixed(2)}, one-node cluster (kube-cluster.sh), image ${images().gateway}, demo MCP server (node) over stdio behind agw-bridge, the workload's default limits (cpu 500m, memory 256Mi)`,
    );
    await kubectlOk(['create', 'namespace', NS]);
    await helmOk([
      'install',
      'agw',
      CHART,
      '-n',
      NS,
      '--set',
      `image.repository=${gatewayRepo()}`,
      ...(gatewayTag() === '0.1.0' ? [] : ['--set', `image.tag=${gatewayTag()}`]),
      '--set',
      `policy.workloads.allowedImages={${imagePrefix()}}`,
      '--set',
      'operator.replicas=1',
      '--wait',
      '--timeout',
      '240s',
    ]);
    await allPodsReady(NS, 3, 240_000);
    await kubectlOk([
      '-n',
      NS,
      'apply',
      '-f',
      'examples/kubernetes/workspace.yaml',
      '-f',
      'examples/kubernetes/apikey.yaml',
    ]);
    const list = {
      apiVersion: 'v1',
      kind: 'List',
      items: [source('cold', { idleAfterSeconds: 10 }), source('steady')],
    };
    await kubectlOk(['-n', NS, 'apply', '-f', '-'], JSON.stringify(list));
    await kubectlOk([
      '-n',
      NS,
      'wait',
      '--for=condition=Ready',
      '--timeout=120s',
      'mcpsource/cold',
      'mcpsource/steady',
    ]);
    for (const name of ['mcp-cold', 'mcp-steady'])
      await kubectlOk(['-n', NS, 'rollout', 'status', `deployment/${name}`, '--timeout=180s']);
    const key = await issuedKey(NS, 'ci-reader');
    const gateway = await serviceUrl(NS, 'agw-agent-gateway');
    await waitFor('cold__add and steady__add through the gateway', 120_000, async () => {
      const a = await callDemoAdd(gateway, key, 'cold__add').catch(() => undefined);
      const b = await callDemoAdd(gateway, key, 'steady__add').catch(() => undefined);
      return a?.text === '5' && b?.text === '5' ? true : undefined;
    });

    // 1. Cold start from zero.
    const colds: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      await waitFor('cold at zero pods', 180_000, async () =>
        (await pods(NS, 'agentgateway.dev/mcp-source=cold')).length === 0 ? true : undefined,
      );
      // Past the gateways' 30 s tool-list cache too, so this is what a call after a quiet spell costs.
      await sleep(1000);
      const started = performance.now();
      const answer = await callDemoAdd(gateway, key, 'cold__add');
      const ms = performance.now() - started;
      say(
        `cold start round ${round + 1}: tools/call answered in ${ms.toFixed(0)} ms (${answer.text === '5' ? 'ok' : 'FAILED'})`,
      );
      if (answer.text === '5') colds.push(ms);
    }
    say(
      `cold start from zero (call through a gateway pod until answered): median ${(middle(colds) ?? Number.NaN).toFixed(0)} ms over ${colds.length} rounds`,
    );

    // 2. Call overhead through the workload versus a local stdio child, one gateway process on the host.
    const token = Buffer.from(
      (
        await kubectlOk(['-n', NS, 'get', 'secret', 'mcp-steady-token', '-o', 'jsonpath={.data.token}'])
      ).trim(),
      'base64',
    ).toString('utf8');
    const clusterIp = (
      await kubectlOk(['-n', NS, 'get', 'service', 'mcp-steady', '-o', 'jsonpath={.spec.clusterIP}'])
    ).trim();
    const dir = await mkdtemp(join(tmpdir(), 'agw-bench-workloads-'));
    const hostKey = generateKey();
    const host = await startBenchGateway(
      dir,
      'gateway',
      {
        workspaces: [
          {
            name: 'bench',
            mcpSources: [
              {
                name: 'local',
                transport: 'stdio',
                command: process.execPath,
                args: ['dist/examples/demo-mcp-server/main.js'],
              },
              {
                name: 'pod',
                transport: 'streamable-http',
                url: `http://${clusterIp}:8080/mcp`,
                credential: { type: 'bearer', secret: { env: 'AGW_BENCH_WORKLOAD_TOKEN' } },
              },
            ],
            keys: [{ id: hostKey.id, hash: hostKey.hash, access: 'write' }],
          },
        ],
      },
      { ...process.env, AGW_BENCH_WORKLOAD_TOKEN: token },
    );
    try {
      const auth = { authorization: `Bearer ${hostKey.key}` };
      const shape = (tool: string) =>
        modernRequest('tools/call', { name: tool, arguments: { a: 2, b: 3 } }, tool, auth);
      for (const concurrency of [1, 8]) {
        const results: Record<'local' | 'pod', LoadResult[]> = { local: [], pod: [] };
        for (let round = 0; round < ROUNDS; round += 1)
          for (const which of round % 2 === 0 ? (['local', 'pod'] as const) : (['pod', 'local'] as const)) {
            const options = { concurrency, ...shape(`${which}__add`) };
            await runLoad('warm-up', `${host.url}/mcp`, { ...options, durationMs: 300 });
            results[which].push(
              await runLoad(`${which} c=${concurrency}`, `${host.url}/mcp`, {
                ...options,
                durationMs: DURATION_MS,
              }),
            );
          }
        const local = medianByRate(results.local);
        const pod = medianByRate(results.pod);
        say(
          `tools/call c=${concurrency}: local stdio ${local.rps.toFixed(0)} req/s p50 ${local.p50Ms.toFixed(2)} ms p99 ${local.p99Ms.toFixed(2)} ms (${local.errors} errors); ` +
            `workload pod ${pod.rps.toFixed(0)} req/s p50 ${pod.p50Ms.toFixed(2)} ms p99 ${pod.p99Ms.toFixed(2)} ms (${pod.errors} errors); ` +
            `pod/local throughput ${(pod.rps / local.rps).toFixed(2)}x, added p50 ${(pod.p50Ms - local.p50Ms).toFixed(2)} ms (median of ${ROUNDS} rounds of ${DURATION_MS} ms)`,
        );
      }
    } finally {
      await host.stop();
      await rm(dir, { recursive: true, force: true });
    }

    // 3. Memory of one workload pod, from the kubelet (after the load above).
    const node = (await kubectlOk(['get', 'nodes', '-o', 'jsonpath={.items[0].metadata.name}'])).trim();
    const summary = JSON.parse(
      await kubectlOk(['get', '--raw', `/api/v1/nodes/${node}/proxy/stats/summary`]),
    ) as { pods: PodStats[] };
    const steady = summary.pods.find(
      (p) => p.podRef.namespace === NS && p.podRef.name.startsWith('mcp-steady-'),
    );
    say(
      `workload pod memory (working set, kubelet): pod ${mib(steady?.memory?.workingSetBytes)} MiB; ` +
        (steady?.containers ?? []).map((c) => `${c.name} ${mib(c.memory?.workingSetBytes)} MiB`).join(', ') +
        ' (the container runs agw-bridge and the node demo server as its child)',
    );

    await kubectlOk([
      '-n',
      NS,
      'delete',
      'mcpsource/cold',
      'mcpsource/steady',
      '--wait=true',
      '--timeout=60s',
    ]);
    await helmOk(['uninstall', 'agw', '-n', NS, '--wait', '--timeout', '120s']);
    await kubectlOk(['delete', 'namespace', NS, '--wait=true', '--timeout=120s']);
  });
});
