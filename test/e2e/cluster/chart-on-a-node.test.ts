// The chart as real pods (issue 21), on a cluster with a node: test/infra/kube-cluster.sh here, kind
// through test/e2e/kind/run.sh. One file for both, run in order:
//   1. the README's install steps literally (default values), the first agent call through
//      `kubectl port-forward`, a call through the Service's ClusterIP, `helm uninstall` leaving nothing;
//   2. the HA values (3 gateways, 2 operators, Redis and PostgreSQL as pods) → every pod Ready;
//   3. under a bounded load of REST and /mcp calls, each churn case against a steady run: a gateway
//      pod deleted, a `helm upgrade` rolling every gateway, the leading operator deleted (a key created
//      meanwhile is served), the Redis pod deleted (calls go on; limits shared again once it is back),
//      a frozen gateway (out of the Service before its liveness probe restarts it);
//   4. `helm upgrade` and `helm uninstall` of the HA release leaving nothing.
// Each case prints its failed-request count and p99 next to the steady run's (docs/benchmarks.md).
import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import {
  formatLoadReport,
  startAgentLoad,
  type AgentLoad,
  type LoadReport,
} from '../../support/agent-load.js';
import {
  allPodsReady,
  connectionsByPod,
  freezeContainer,
  helm,
  helmOk,
  images,
  kubectl,
  kubectlOk,
  mode,
  pods,
  podReady,
  portForward,
  serviceUrl,
  waitFor,
} from './cluster-context.js';
import {
  applyReadmeResources,
  callDemoAdd,
  createApiKey,
  deployDemoMcp,
  deployStatefulParts,
  issuedKey,
} from './cluster-fixtures.js';

const CHART = 'charts/agent-gateway';
const gatewayRepo = () => images().gateway.replace(/:[^:/]+$/, '');
const gatewayTag = () => /:([^:/]+)$/.exec(images().gateway)?.[1] ?? '0.1.0';
/** The chart's default tag is its appVersion (the image/build.sh tag); kind's image is tagged e2e. */
const tagArgs = () => (gatewayTag() === '0.1.0' ? [] : ['--set', `image.tag=${gatewayTag()}`]);
const results: string[] = [];

function report(line: string): void {
  results.push(line);
  process.stdout.write(`[cluster] ${line}\n`);
}

afterAll(() => {
  process.stdout.write(`\n[cluster] summary\n${results.map((l) => `  ${l}`).join('\n')}\n`);
});

async function getJson(
  url: string,
  key: string,
  accept = 'application/json',
): Promise<{ status: number; body: string }> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (accept !== '') headers['accept'] = accept;
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(15_000) });
  return { status: response.status, body: await response.text() };
}

/** What a release leaves: every object labelled with its instance, in its namespace and cluster-wide. */
async function leftovers(namespace: string, release: string): Promise<string[]> {
  const kinds =
    'all,configmaps,secrets,serviceaccounts,roles,rolebindings,poddisruptionbudgets,networkpolicies,horizontalpodautoscalers,leases,endpointslices';
  const inNamespace = await kubectlOk([
    '-n',
    namespace,
    'get',
    kinds,
    '-l',
    `app.kubernetes.io/instance=${release}`,
    '-o',
    'name',
  ]);
  const clusterWide = await kubectlOk([
    'get',
    'clusterroles,clusterrolebindings',
    '-l',
    `app.kubernetes.io/instance=${release}`,
    '-o',
    'name',
  ]);
  return `${inNamespace}\n${clusterWide}`.split('\n').filter((l) => l.trim() !== '');
}

async function gatewayPods(namespace: string): Promise<string[]> {
  return (await pods(namespace, 'app.kubernetes.io/component=gateway'))
    .filter(podReady)
    .map((p) => p.metadata.name);
}

/** The Ready gateway the running load holds the most connections to, and how many (node mode). */
async function busiestGateway(
  namespace: string,
  service: string,
): Promise<{ pod: string; connections: number }> {
  const ready = await gatewayPods(namespace);
  const counts = await connectionsByPod(namespace, service);
  const [pod, connections] = [...counts]
    .filter(([name]) => ready.includes(name))
    .sort((a, b) => b[1] - a[1])[0] ?? [ready[0] ?? '', 0];
  if (mode() === 'node')
    expect(connections, `load connections per pod: ${JSON.stringify([...counts])}`).toBeGreaterThan(0);
  return { pod, connections };
}

async function mcpToolCall(url: string, key: string): Promise<number> {
  const { status, text } = await callDemoAdd(url, key, 'docs__add');
  expect(text).toBe('5');
  return status;
}

describe('the README install on a node (default values)', () => {
  const ns = 'agent-gateway';
  let forward: ChildProcess | undefined;
  let key = '';

  afterAll(() => {
    forward?.kill();
  });

  it('helm install → every pod Ready; the McpSource, key and workspace Ready', async () => {
    // The README's steps as written; only the image repository differs (the README's is a placeholder
    // for the reader's registry), and the demo server stands in for "edit the McpSource url first".
    await kubectlOk(['create', 'namespace', ns]);
    await deployDemoMcp(ns);
    const t0 = Date.now();
    await helmOk([
      'install',
      'agw',
      CHART,
      '-n',
      ns,
      '--set',
      `image.repository=${gatewayRepo()}`,
      ...tagArgs(),
    ]);
    await allPodsReady(ns, 5, 240_000); // 2 gateways, 2 operators, the demo server
    report(`helm install (default values) → all pods Ready: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    await applyReadmeResources(ns);
    key = await issuedKey(ns, 'ci-reader');
    expect(key).toMatch(/^agw_/);
  });

  it('the first agent call through `kubectl port-forward svc/agw-agent-gateway 8080:80`', async () => {
    forward = await portForward(ns, 'svc/agw-agent-gateway', '8080:80');
    const tools = await waitFor('docs__ tools through the port-forward', 60_000, async () => {
      // As the README's curl sends it: no Accept header, so the default TOON answer.
      const answer = await getJson('http://127.0.0.1:8080/agent/tools', key, '');
      return answer.status === 200 && answer.body.includes('docs__echo') ? answer : undefined;
    });
    expect(tools.body).toContain('docs__add');
    const config = await getJson('http://127.0.0.1:8080/agent/mcp/config', key, '');
    expect(config.status).toBe(200);
    expect(config.body).toContain('/mcp');
    forward.kill();
    forward = undefined;
  });

  it('an agent call through the Service ClusterIP, REST and /mcp', async () => {
    const url = await serviceUrl(ns, 'agw-agent-gateway');
    const tools = await getJson(`${url}/agent/tools`, key);
    expect(tools.status).toBe(200);
    expect(tools.body).toContain('docs__echo');
    expect(await mcpToolCall(url, key)).toBe(200);
    const denied = await getJson(`${url}/agent/tools`, `${key.slice(0, -2)}xx`);
    expect(denied.status).toBe(401);
  });

  it('helm uninstall leaves nothing of the release (the CRDs stay, as Helm does with crds/)', async () => {
    await kubectlOk([
      '-n',
      ns,
      'delete',
      'mcpsource/docs',
      'apikey/ci-reader',
      'workspace/acme',
      '--wait=true',
      '--timeout=60s',
    ]);
    await helmOk(['uninstall', 'agw', '-n', ns, '--wait', '--timeout', '120s']);
    const left = await waitFor('the release gone', 60_000, async () => {
      const list = await leftovers(ns, 'agw');
      return list.length === 0 ? list : undefined;
    });
    expect(left).toEqual([]);
    // The operator's own children (key Secrets, rendered ConfigMaps) go with their owners: the
    // garbage collector deletes them after their owner is gone, in the background, so they are
    // waited for (a CI run under load once saw them a moment after the uninstall returned).
    let rendered = '';
    await waitFor('the rendered children collected', 60_000, async () => {
      rendered = (
        await kubectlOk([
          '-n',
          ns,
          'get',
          'configmaps,secrets',
          '-l',
          'app.kubernetes.io/managed-by=agent-gateway-operator',
          '-o',
          'name',
        ])
      ).trim();
      return rendered === '' ? true : undefined;
    }).catch(() => undefined);
    expect(rendered).toBe('');
    const crds = await kubectlOk([
      'get',
      'crd',
      '-l',
      'app.kubernetes.io/part-of=agent-gateway',
      '-o',
      'name',
    ]);
    expect(crds.split('\n').filter(Boolean).length).toBeGreaterThanOrEqual(4);
  });
});

describe('the HA values on a node, under churn', () => {
  const ns = 'agw-ha';
  const release = 'agw';
  let url = '';
  let key = '';
  let baseline: LoadReport | undefined;
  const haArgs = () => [
    '-n',
    ns,
    '-f',
    `${CHART}/ci/ha-values.yaml`,
    '-f',
    'test/e2e/cluster/ha-overlay.yaml',
    '--set',
    `image.repository=${gatewayRepo()}`,
    ...tagArgs(),
  ];
  const load = (): AgentLoad =>
    startAgentLoad({
      baseUrl: url,
      key,
      concurrency: 4,
      requestTimeoutMs: 10_000,
      toolCall: { name: 'docs__add', arguments: { a: 1, b: 2 } },
    });
  const settle = (ms: number) => sleep(ms);
  /** Once every pod is Ready again and the load has run 3 s more: the load stopped and reported. */
  const recoveredRun = async (running: AgentLoad, label: string) => {
    await allPodsReady(ns, 8, 120_000);
    await settle(3_000);
    const run = await running.stop();
    report(formatLoadReport(label, run, baseline));
    return run;
  };

  it('helm install with the HA values → 3 gateways, 2 operators, Redis and PostgreSQL Ready', async () => {
    await kubectlOk(['create', 'namespace', ns]);
    await deployDemoMcp(ns);
    await deployStatefulParts(ns);
    await allPodsReady(ns, 3, 180_000);
    const t0 = Date.now();
    await helmOk(['install', release, CHART, ...haArgs()]);
    await allPodsReady(ns, 8, 300_000);
    report(`helm install (HA values) → all pods Ready: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    expect(await gatewayPods(ns)).toHaveLength(3);
    expect((await pods(ns, 'app.kubernetes.io/component=operator')).filter(podReady)).toHaveLength(2);
    // The chart's NetworkPolicies are on (ha-overlay.yaml) and the node enforces them: every case
    // of this block runs under them.
    const policies = await kubectlOk([
      '-n',
      ns,
      'get',
      'networkpolicies',
      '-l',
      `app.kubernetes.io/instance=${release}`,
      '-o',
      'name',
    ]);
    expect(policies.trim().split('\n').sort()).toEqual([
      `networkpolicy.networking.k8s.io/${release}-agent-gateway`,
      `networkpolicy.networking.k8s.io/${release}-agent-gateway-operator`,
    ]);
    await applyReadmeResources(ns);
    key = await issuedKey(ns, 'ci-reader');
    url = await serviceUrl(ns, `${release}-agent-gateway`);
    await waitFor('every gateway serving the key', 60_000, async () => {
      for (let i = 0; i < 12; i++) {
        const answer = await getJson(`${url}/agent/tools`, key);
        if (answer.status !== 200 || !answer.body.includes('docs__echo')) return undefined;
      }
      return true;
    });
  });

  it('steady run without churn (the baseline)', async () => {
    const running = load();
    await settle(20_000);
    baseline = await running.stop();
    report(formatLoadReport('steady, no churn', baseline));
    expect(baseline.ok).toBeGreaterThan(100);
    expect(baseline.failed).toBe(0);
  });

  it('a gateway pod deleted under load → 0 failed requests', async () => {
    const running = load();
    await settle(3_000);
    const victim = await busiestGateway(ns, `${release}-agent-gateway`);
    report(`gateway pod deleted: ${victim.pod}, holding ${victim.connections} of the load's connections`);
    await kubectlOk(['-n', ns, 'delete', 'pod', victim.pod, '--wait=true']);
    const run = await recoveredRun(running, 'gateway pod deleted');
    expect(run.ok).toBeGreaterThan(50);
    expect(run.failed, JSON.stringify(run.firstFailures)).toBe(0);
  });

  it('helm upgrade rolling every gateway pod under load → 0 failed requests', async () => {
    const before = await gatewayPods(ns);
    const running = load();
    await settle(3_000);
    await helmOk([
      'upgrade',
      release,
      CHART,
      ...haArgs(),
      '--set-string',
      'gateway.podAnnotations.agw-e2e/roll=1',
    ]);
    await waitFor('every gateway replaced', 300_000, async () => {
      const now = await gatewayPods(ns);
      return now.length === 3 && now.every((p) => !before.includes(p)) ? true : undefined;
    });
    const run = await recoveredRun(running, 'helm upgrade rolling 3 gateways');
    expect(run.ok).toBeGreaterThan(50);
    expect(run.failed, JSON.stringify(run.firstFailures)).toBe(0);
  });

  it('the leading operator deleted → the standby leads within the lease; a key created meanwhile is served', async () => {
    const leaseOf = async () => {
      const leases = JSON.parse(await kubectlOk(['-n', ns, 'get', 'leases', '-o', 'json'])) as {
        items: {
          metadata: { name: string };
          spec: { holderIdentity?: string; leaseDurationSeconds?: number };
        }[];
      };
      return leases.items.find((l) => l.metadata.name.includes('operator'));
    };
    const lease = await leaseOf();
    const leader = lease?.spec.holderIdentity ?? '';
    const operators = (await pods(ns, 'app.kubernetes.io/component=operator')).map((p) => p.metadata.name);
    const leadingPod = operators.find((p) => leader.startsWith(p));
    expect(leadingPod, `lease holder ${leader} among ${operators.join(',')}`).toBeDefined();
    const running = load();
    const t0 = Date.now();
    await kubectlOk(['-n', ns, 'delete', 'pod', leadingPod ?? '', '--wait=false']);
    await createApiKey(ns, 'failover-key');
    const newLeader = await waitFor('a new lease holder', 60_000, async () => {
      const holder = (await leaseOf())?.spec.holderIdentity ?? '';
      return holder !== '' && !holder.startsWith(leadingPod ?? '') ? holder : undefined;
    });
    const ledAfter = Date.now() - t0;
    await kubectlOk(['-n', ns, 'wait', '--for=condition=Ready', '--timeout=60s', 'apikey/failover-key']);
    const readyAfter = Date.now() - t0;
    const fresh = await issuedKey(ns, 'failover-key');
    const served = await waitFor('the new key served', 30_000, async () => {
      const answer = await getJson(`${url}/agent/tools`, fresh);
      return answer.status === 200 ? answer : undefined;
    });
    const servedAfter = Date.now() - t0;
    const run = await running.stop();
    report(
      `operator failover: ${newLeader} leads after ${(ledAfter / 1000).toFixed(1)} s (lease ${lease?.spec.leaseDurationSeconds ?? '?'} s); ` +
        `key created meanwhile Ready after ${(readyAfter / 1000).toFixed(1)} s, served after ${(servedAfter / 1000).toFixed(1)} s`,
    );
    report(formatLoadReport('operator leader deleted', run, baseline));
    expect(served.body).toContain('docs__echo');
    expect(ledAfter).toBeLessThan((lease?.spec.leaseDurationSeconds ?? 15) * 1000 + 5_000);
    expect(run.failed, JSON.stringify(run.firstFailures)).toBe(0);
    await allPodsReady(ns, 8, 120_000);
  });

  it('the Redis pod deleted → calls go on (local fallback); limits are shared again once it is back', async () => {
    const quota = 30;
    // Shared before: a fresh key's daily search quota holds across the three gateways.
    const countAdmitted = async (apiKey: string, attempts: number) => {
      let admitted = 0;
      for (let i = 0; i < attempts; i++) {
        const response = await fetch(`${url}/agent/search`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${apiKey}`,
            'content-type': 'application/json',
            connection: 'close',
          },
          body: JSON.stringify({ query: 'demo' }),
          signal: AbortSignal.timeout(10_000),
        });
        await response.arrayBuffer();
        if (response.status === 200) admitted += 1;
        else expect(response.status).toBe(429);
      }
      return admitted;
    };
    await createApiKey(ns, 'quota-before', { searchesPerDay: quota });
    await kubectlOk(['-n', ns, 'wait', '--for=condition=Ready', '--timeout=60s', 'apikey/quota-before']);
    const before = await issuedKey(ns, 'quota-before');
    await waitFor('quota key served', 30_000, async () =>
      (await getJson(`${url}/agent/tools`, before)).status === 200 ? true : undefined,
    );
    expect(await countAdmitted(before, quota + 15)).toBe(quota);

    const running = load();
    await settle(2_000);
    const [redisPod] = (await pods(ns, 'app=agw-redis')).map((p) => p.metadata.name);
    const t0 = Date.now();
    await kubectlOk(['-n', ns, 'delete', 'pod', redisPod ?? '', '--wait=true']);
    await allPodsReady(ns, 8, 120_000);
    const back = Date.now() - t0;
    await settle(5_000);
    const run = await running.stop();
    report(`Redis pod deleted: a new one Ready after ${(back / 1000).toFixed(1)} s`);
    report(formatLoadReport('Redis pod deleted', run, baseline));
    expect(run.failed, JSON.stringify(run.firstFailures)).toBe(0);

    // Shared again: the same check on a new key once every gateway has reconnected.
    await createApiKey(ns, 'quota-after', { searchesPerDay: quota });
    await kubectlOk(['-n', ns, 'wait', '--for=condition=Ready', '--timeout=60s', 'apikey/quota-after']);
    const after = await issuedKey(ns, 'quota-after');
    await waitFor('quota key served', 30_000, async () =>
      (await getJson(`${url}/agent/tools`, after)).status === 200 ? true : undefined,
    );
    await settle(5_000);
    expect(await countAdmitted(after, quota + 15)).toBe(quota);
  });

  it('a frozen gateway (SIGSTOP) leaves the Service before its liveness probe restarts it', async () => {
    const running = load();
    await settle(2_000);
    const busiest = await busiestGateway(ns, `${release}-agent-gateway`);
    const victim = busiest.pod;
    report(`gateway frozen: ${victim}, holding ${busiest.connections} of the load's connections`);
    const t0 = Date.now();
    await freezeContainer(ns, victim);
    const outOfService = await waitFor('the frozen pod out of the endpoints', 60_000, async () => {
      const slices = JSON.parse(
        await kubectlOk([
          '-n',
          ns,
          'get',
          'endpointslices',
          '-l',
          `kubernetes.io/service-name=${release}-agent-gateway`,
          '-o',
          'json',
        ]),
      ) as { items: { endpoints?: { targetRef?: { name: string }; conditions?: { ready?: boolean } }[] }[] };
      const mine = slices.items.flatMap((s) => s.endpoints ?? []).filter((e) => e.targetRef?.name === victim);
      return mine.every((e) => e.conditions?.ready !== true) ? Date.now() - t0 : undefined;
    });
    const restartedAt = await waitFor('the liveness probe restarting it', 120_000, async () => {
      const [pod] = (await pods(ns)).filter((p) => p.metadata.name === victim);
      return (pod?.status.containerStatuses?.[0]?.restartCount ?? 0) > 0 ? Date.now() - t0 : undefined;
    });
    await allPodsReady(ns, 8, 120_000);
    const run = await running.stop();
    report(
      `frozen gateway: out of the Service after ${(outOfService / 1000).toFixed(1)} s, restarted by liveness after ${(restartedAt / 1000).toFixed(1)} s`,
    );
    report(formatLoadReport('gateway frozen (SIGSTOP)', run, baseline));
    expect(outOfService).toBeLessThan(restartedAt);
    // Calls already on a connection to the frozen pod wait out their time-out (one per connection
    // it held, then the loop reconnects elsewhere); the rest succeed.
    expect(run.ok).toBeGreaterThan(run.failed * 10);
    if (mode() === 'node') expect(run.failed).toBeLessThanOrEqual(busiest.connections * 2);
  });

  it('helm upgrade and helm uninstall of the HA release leave nothing', async () => {
    await helmOk([
      'upgrade',
      release,
      CHART,
      ...haArgs(),
      '--set',
      'gateway.logLevel=debug',
      '--wait',
      '--timeout',
      '300s',
    ]);
    await allPodsReady(ns, 8, 120_000);
    for (const name of ['failover-key', 'quota-before', 'quota-after', 'ci-reader'])
      await kubectl(['-n', ns, 'delete', 'apikey', name, '--wait=true']);
    await kubectlOk(['-n', ns, 'delete', 'mcpsource/docs', 'workspace/acme', '--wait=true', '--timeout=60s']);
    await helmOk(['uninstall', release, '-n', ns, '--wait', '--timeout', '120s']);
    // What stays is the Redis encryption key, on purpose (helm.sh/resource-policy: keep; docs/redis.md).
    const kept = `secret/${release}-agent-gateway-redis-encryption`;
    const left = await waitFor('the HA release gone', 60_000, async () => {
      const list = await leftovers(ns, release);
      return list.every((l) => l === kept) ? list : undefined;
    });
    expect(left).toEqual([kept]);
    const status = await helm(['status', release, '-n', ns]);
    expect(status.code).not.toBe(0);
  });
});
