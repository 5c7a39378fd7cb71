// The chart's dashboard and alerts against real scrapes (issue 25): two real gateway processes with
// metrics on as the chart's metrics-only values set them (OTEL_SDK_DISABLED=false, no trace sampled),
// sharing a real Redis, with traffic that creates each series (search, tools/list, a tools/call to a
// real upstream and one to an unreachable one, a rate-limit refusal, a rejected config change, a
// data-source sync), and a real operator process reconciling a Workspace on the test kube-apiserver.
// Every metric and label the dashboard and the PrometheusRule name must be in those scrapes. Then the
// gauges added for the alerts: agw_config_digest (equal across replicas whatever their revisions)
// and agw_shared_state_up (0 once Redis is stopped, 1 again when it is back).
import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Child } from '../bench/child-process.js';
import { startModernServer, type RunningModernServer } from '../fixtures/upstreams/modern-server.js';
import { freePort } from '../infra/free-port.js';
import { kubeBinDir } from '../infra/control-plane.js';
import { startRedis, type RunningRedis } from '../infra/redis-server.js';
import { httpSource, keyRecord, mcpPost, newKey, newKeys } from '../support/gateway-harness.js';
import {
  freshNamespace,
  kubectl,
  kubectlOk,
  operatorMetricsEnv,
  startOperator,
} from '../support/kube-harness.js';
import { testEncryption, testEncryptionEnv } from '../support/redis-encryption.js';
import { writeTestPolicy } from '../support/test-policy.js';
import { until } from '../support/until.js';

const run = promisify(execFile);
const [key, limited] = newKeys(2);
/** Labels Prometheus gives every target (Prometheus Operator's target labels) and histogram buckets. */
const TARGET_LABELS = new Set(['namespace', 'pod', 'job', 'instance', 'service', 'container', 'endpoint']);

interface Gateway {
  process: ChildProcessWithoutNullStreams;
  url: string;
  metricsPort: number;
}

let redis: RunningRedis;
let upstream: RunningModernServer;
let dir: string;
let configPath: string;
let configText: string;
let gateways: Gateway[] = [];
let operator: Child | undefined;
let operatorMetricsPort: number;
let namespace: string;

function configWith(brokenPort: number, extraKeys: Record<string, unknown>[] = []): string {
  return stringify({
    version: 1,
    server: { host: '127.0.0.1' },
    sharedState: { redis: { url: { env: 'REDIS_URL' } }, encryption: testEncryption },
    workspaces: [
      {
        name: 'demo',
        mcpSources: [
          httpSource('modern', upstream.url),
          { name: 'broken', transport: 'streamable-http', url: `http://127.0.0.1:${brokenPort}/mcp` },
        ],
        dataSources: [
          { name: 'docs', type: 'files', path: join(dir, 'docs') },
          // A directory that is not there: its syncs fail (agw_sync_failures_total).
          { name: 'missing', type: 'files', path: join(dir, 'missing') },
        ],
        keys: [
          keyRecord(key, { access: 'write' }),
          keyRecord(limited, { limits: { requestsPerMinute: 1 } }),
          ...extraKeys,
        ],
      },
    ],
  });
}

async function startGateway(): Promise<Gateway> {
  const metricsPort = await freePort();
  const port = await freePort();
  const child = spawn(
    process.execPath,
    ['bin/agent-gateway.js', 'serve', '--config', configPath, '--port', String(port), '--log-level', 'warn'],
    {
      env: {
        ...process.env,
        ...testEncryptionEnv,
        REDIS_URL: redis.url,
        // As the chart's metrics-only values render them (templates/_helpers.tpl).
        OTEL_SDK_DISABLED: 'false',
        OTEL_TRACES_SAMPLER: 'always_off',
        OTEL_EXPORTER_PROMETHEUS_PORT: String(metricsPort),
        OTEL_EXPORTER_PROMETHEUS_HOST: '127.0.0.1',
      },
    },
  );
  child.stdout.resume();
  child.stderr.resume();
  const url = `http://127.0.0.1:${port}`;
  await until('the gateway to listen', async () =>
    (await fetch(`${url}/healthz`).catch(() => undefined))?.status === 200 ? true : undefined,
  );
  const gateway = { process: child, url, metricsPort };
  gateways.push(gateway);
  return gateway;
}

/** A scrape: each sample's metric name, label names and value. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}
async function scrape(port: number): Promise<Sample[]> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)/.exec(line);
      if (match === null) throw new Error(`unparsed exposition line: ${line}`);
      const labels = Object.fromEntries(
        [...(match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((m) => [
          m[1],
          m[2],
        ]),
      );
      return { name: match[1] as string, labels, value: Number(match[3]) };
    });
}
const valueOf = (samples: Sample[], name: string) => samples.find((s) => s.name === name)?.value;

function search(): Promise<Response> {
  return fetch(`${(gateways[0] as Gateway).url}/agent/search?response_format=json`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: 'pelican rota', limit: 3 }),
  });
}

let brokenPort: number;
beforeAll(async () => {
  redis = await startRedis();
  upstream = await startModernServer();
  dir = await mkdtemp(join(tmpdir(), 'agw-monitoring-metrics-'));
  await mkdir(join(dir, 'docs'));
  await writeFile(join(dir, 'docs', 'rota.md'), '# Rota\n\nThe pelican rota decides who reviews changes.\n');
  brokenPort = await freePort();
  configPath = join(dir, 'gateway.yaml');
  configText = configWith(brokenPort);
  await writeFile(configPath, configText);
  const gateway = await startGateway();
  await until('the docs to be indexed', async () => {
    const body = (await (await search()).json()) as { results?: unknown[] };
    return (body.results?.length ?? 0) > 0 ? true : undefined;
  });
  // Traffic that makes each series: a listing (discovery lookups, breakers), a call to a real
  // upstream and one to an unreachable one (upstream calls with an error class), a refusal.
  expect((await mcpPost(gateway.url, key.key, { id: 1, method: 'tools/list' })).status).toBe(200);
  const call = (id: number, name: string) =>
    mcpPost(gateway.url, key.key, { id, method: 'tools/call', params: { name, arguments: { text: 'hi' } } });
  expect(((await (await call(2, 'modern__echo')).json()) as { result?: unknown }).result).toBeDefined();
  await call(3, 'broken__echo');
  await mcpPost(gateway.url, limited.key, { id: 4, method: 'tools/list' });
  expect((await mcpPost(gateway.url, limited.key, { id: 5, method: 'tools/list' })).status).toBe(429);
  // A rejected config change, then the good config back (the gateway's revision moves on).
  await writeFile(configPath, 'version: 1\nworkspaces: [{ name: 7 }]\n');
  await until('the reload failure to be counted', async () =>
    valueOf(await scrape(gateway.metricsPort), 'agw_config_reload_failures_total') === 1 ? true : undefined,
  );
  await writeFile(configPath, configText);
  await until('the good config to be back', async () =>
    (valueOf(await scrape(gateway.metricsPort), 'agw_config_revision') ?? 0) >= 2 ? true : undefined,
  );

  // The operator, metrics on as the chart sets them, reconciling one Workspace.
  namespace = await freshNamespace('agw-opmetrics');
  const policy = await writeTestPolicy();
  operator = await startOperator({
    gatewayNamespace: namespace,
    policyPath: policy.policyPath,
    identity: 'metrics-test',
    extraArgs: ['--scope', 'namespace', '--health-port', '0', '--health-host', '127.0.0.1'],
    env: operatorMetricsEnv((operatorMetricsPort = await freePort())),
  });
  await kubectlOk(
    ['apply', '-n', namespace, '-f', '-'],
    stringify({
      apiVersion: 'agentgateway.dev/v1alpha1',
      kind: 'Workspace',
      metadata: { name: `metrics-${namespace.slice(-6)}` },
      spec: { displayName: 'Metrics' },
    }),
  );
  await until('a reconcile to be timed', async () =>
    (valueOf(await scrape(operatorMetricsPort), 'agw_operator_reconcile_duration_count') ?? 0) >= 1
      ? true
      : undefined,
  );
}, 120_000);

afterAll(async () => {
  for (const gateway of gateways) {
    gateway.process.kill('SIGTERM');
    await new Promise((resolve) => gateway.process.once('exit', resolve));
  }
  gateways = [];
  await operator?.stop();
  if (namespace !== undefined) await kubectl(['delete', 'namespace', namespace, '--wait=false']);
  await upstream?.close();
  await redis?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** Every sample name and label name of the gateways' and the operator's scrapes. */
async function exported(): Promise<{ names: Set<string>; labels: Set<string> }> {
  const samples = [
    ...(await Promise.all(gateways.map((g) => scrape(g.metricsPort)))).flat(),
    ...(await scrape(operatorMetricsPort)),
  ];
  return {
    names: new Set(samples.map((s) => s.name)),
    labels: new Set(samples.flatMap((s) => Object.keys(s.labels))),
  };
}

/** The metric and label names a PromQL query (or Grafana label_values()) uses. */
function namesIn(
  expr: string,
  labelNames: Set<string>,
): { metrics: string[]; labels: string[]; foreign: string[] } {
  const metrics = new Set<string>();
  const labels = new Set<string>();
  for (const [token] of expr.matchAll(/\bagw_[a-z0-9_]+\b/g))
    (labelNames.has(token) ? labels : metrics).add(token);
  for (const m of expr.matchAll(/\b(?:by|without)\s*\(([^)]*)\)/g))
    for (const label of (m[1] as string).split(',')) if (label.trim() !== '') labels.add(label.trim());
  for (const m of expr.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)\s*"/g))
    if (m[1] !== '__name__') labels.add(m[1] as string);
  // A selector or range on anything but our own metrics (`up{…}`, `kube_pod_info[5m]`).
  const foreign = [...expr.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\s*[{[]/g)]
    .map((m) => m[1] as string)
    .filter((name) => !name.startsWith('agw_'));
  return { metrics: [...metrics], labels: [...labels], foreign };
}

function expectKnown(where: string, expr: string, known: { names: Set<string>; labels: Set<string> }): void {
  const used = namesIn(expr, known.labels);
  expect(used.metrics.length, `${where}: ${expr}`).toBeGreaterThan(0);
  expect(used.foreign, `${where}: metrics not ours`).toEqual([]);
  for (const metric of used.metrics)
    expect(known.names.has(metric), `${where}: ${metric} is not exported`).toBe(true);
  for (const label of used.labels)
    expect(
      known.labels.has(label) || TARGET_LABELS.has(label),
      `${where}: label ${label} is not exported`,
    ).toBe(true);
}

describe('the dashboard and the alerts against real scrapes', () => {
  it('monitoring:dashboard-metrics — every panel has a data source and a query; every metric and label its queries use is in a real scrape', async () => {
    const known = await exported();
    // Sanity: the series the traffic made are all there.
    for (const name of [
      'agw_requests_total',
      'agw_request_duration_bucket',
      'agw_upstream_calls_total',
      'agw_upstream_duration_bucket',
      'agw_breaker_state',
      'agw_discovery_lookups_total',
      'agw_ratelimit_refusals_total',
      'agw_config_revision',
      'agw_config_digest',
      'agw_config_reload_failures_total',
      'agw_shared_state_up',
      'agw_sync_documents_total',
      'agw_sync_failures_total',
      'agw_knowledge_documents',
      'agw_operator_reconcile_duration_count',
      'agw_operator_queue_depth',
      'agw_operator_leader',
    ])
      expect(known.names.has(name), name).toBe(true);

    const dashboard = JSON.parse(
      await readFile('charts/agent-gateway/dashboards/agent-gateway.json', 'utf8'),
    ) as {
      panels: {
        title: string;
        type: string;
        datasource?: { type: string; uid: string };
        targets?: { expr?: string; datasource?: { uid: string }; legendFormat?: string }[];
      }[];
      templating: { list: { name: string; type: string; query: string | { query: string } }[] };
    };
    const panels = dashboard.panels.filter((p) => p.type !== 'row');
    expect(panels.length).toBeGreaterThanOrEqual(15);
    for (const panel of panels) {
      expect(panel.datasource, panel.title).toEqual({ type: 'prometheus', uid: '${datasource}' });
      expect(panel.targets?.length ?? 0, panel.title).toBeGreaterThan(0);
      for (const target of panel.targets ?? []) {
        expect(target.expr, panel.title).toBeTruthy();
        expectKnown(panel.title, target.expr as string, known);
        for (const m of (target.legendFormat ?? '').matchAll(/\{\{(\w+)\}\}/g))
          expect(
            known.labels.has(m[1] as string) || TARGET_LABELS.has(m[1] as string),
            `${panel.title}: {{${m[1]}}}`,
          ).toBe(true);
      }
    }
    for (const variable of dashboard.templating.list.filter((v) => v.type === 'query')) {
      const query = typeof variable.query === 'string' ? variable.query : variable.query.query;
      expectKnown(`$${variable.name}`, query, known);
      // label_values(selector, label): the label must be exported too.
      const label = /,\s*([a-zA-Z_]\w*)\)\s*$/.exec(query)?.[1] as string;
      expect(known.labels.has(label) || TARGET_LABELS.has(label), `$${variable.name}: ${label}`).toBe(true);
    }
    // The checker can fail: a misspelt metric is not in the scrape.
    expect(
      namesIn('rate(agw_request_total[5m])', known.labels).metrics.every((m) => known.names.has(m)),
    ).toBe(false);
  });

  it('monitoring:rule-metrics — every metric and label the alerts use is in a real scrape', async () => {
    const known = await exported();
    const { stdout } = await run(join(kubeBinDir(), 'helm'), [
      'template',
      'agw',
      'charts/agent-gateway',
      '--set',
      'metrics.prometheusRule.enabled=true',
      '--show-only',
      'templates/prometheusrule.yaml',
    ]);
    const rule = parseAllDocuments(stdout)
      .map((d) => d.toJS() as { spec?: { groups: { rules: { alert: string; expr: string }[] }[] } })
      .find((d) => d?.spec !== undefined);
    const rules = rule?.spec?.groups.flatMap((g) => g.rules) ?? [];
    expect(rules.length).toBe(6);
    for (const r of rules) expectKnown(r.alert, r.expr, known);
  });
});

describe('the gauges behind the alerts', () => {
  it('otel:config-digest — replicas serving the same config report the same digest whatever their revisions; a change moves both', async () => {
    const first = gateways[0] as Gateway;
    const second = await startGateway();
    const before = await Promise.all([scrape(first.metricsPort), scrape(second.metricsPort)]);
    expect(valueOf(before[0], 'agw_config_revision')).toBeGreaterThanOrEqual(2);
    expect(valueOf(before[1], 'agw_config_revision')).toBe(1);
    const digest = valueOf(before[0], 'agw_config_digest') as number;
    expect(Number.isSafeInteger(digest) && digest > 0).toBe(true);
    expect(valueOf(before[1], 'agw_config_digest')).toBe(digest);

    configText = configWith(brokenPort, [keyRecord(newKey())]);
    await writeFile(configPath, configText);
    const after = await until('both replicas to reload', async () => {
      const digests = await Promise.all(
        [first, second].map(async (g) => valueOf(await scrape(g.metricsPort), 'agw_config_digest')),
      );
      return digests.every((d) => d !== digest) ? digests : undefined;
    });
    expect(after[0]).toBe(after[1]);
  }, 60_000);

  it('otel:shared-state-up — 1 while Redis answers, 0 once it is stopped, 1 again when it is back', async () => {
    const gateway = gateways[0] as Gateway;
    expect(valueOf(await scrape(gateway.metricsPort), 'agw_shared_state_up')).toBe(1);
    await redis.kill();
    await until('agw_shared_state_up to be 0', async () => {
      // Requests go on (served from local state) while Redis is gone.
      expect((await mcpPost(gateway.url, key.key, { id: 9, method: 'tools/list' })).status).toBe(200);
      return valueOf(await scrape(gateway.metricsPort), 'agw_shared_state_up') === 0 ? true : undefined;
    });
    await redis.restart();
    await until('agw_shared_state_up to be 1 again', async () => {
      await mcpPost(gateway.url, key.key, { id: 10, method: 'tools/list' });
      return valueOf(await scrape(gateway.metricsPort), 'agw_shared_state_up') === 1 ? true : undefined;
    });
  }, 60_000);
});
