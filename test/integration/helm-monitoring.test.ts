// The chart's monitoring objects (issue 25): off by default; on, `helm template` renders
// ServiceMonitors, PodMonitors, a Grafana dashboard ConfigMap and a PrometheusRule that the real
// kube-apiserver accepts (server-side dry run against the prometheus-operator CRDs, generated from
// its v0.95.2 API types: test/infra/ensure-monitoring-crds.sh), whose rules pass `promtool check
// rules` and a `promtool test rules` unit test per alert, firing and not firing (promtool built from
// github.com/prometheus/prometheus v0.316.0: test/infra/ensure-promtool.sh). The dashboard's queries
// parse as PromQL too; that they name only metrics the processes export is
// monitoring-metrics.test.ts, against real scrapes.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeBinDir } from '../infra/control-plane.js';
import { freshNamespace, kubectl, kubectlOk } from '../support/kube-harness.js';
import { monitoringCrdsDir, promtoolPath } from '../support/monitoring-tools.js';
import { until } from '../support/until.js';
import { ALERT_CASES, expandAnnotations } from '../support/alert-cases.js';

const run = promisify(execFile);
const CHART = 'charts/agent-gateway';
const MONITORING_ON = [
  'metrics.serviceMonitor.enabled=true',
  'metrics.podMonitor.enabled=true',
  'metrics.dashboard.enabled=true',
  'metrics.prometheusRule.enabled=true',
];

interface Rendered {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
}
interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

async function helmTemplate(namespace: string, ...set: string[]): Promise<{ code: number; out: string }> {
  try {
    const { stdout } = await run(
      join(kubeBinDir(), 'helm'),
      [
        'template',
        'agw',
        CHART,
        '--namespace',
        namespace,
        // `json:` values go through --set-json (numbers stay numbers).
        ...set.flatMap((value) =>
          value.startsWith('json:') ? ['--set-json', value.slice(5)] : ['--set', value],
        ),
      ],
      { maxBuffer: 16 << 20 },
    );
    return { code: 0, out: stdout };
  } catch (error) {
    return { code: 1, out: String((error as { stderr?: string }).stderr) };
  }
}

async function render(namespace: string, ...set: string[]): Promise<Rendered[]> {
  const result = await helmTemplate(namespace, ...set);
  if (result.code !== 0) throw new Error(result.out);
  return parseAllDocuments(result.out)
    .map((d) => d.toJS() as Rendered)
    .filter((d) => d?.kind !== undefined);
}

const MONITORING_KINDS = ['ServiceMonitor', 'PodMonitor', 'PrometheusRule'];
const isMonitoring = (d: Rendered) =>
  MONITORING_KINDS.includes(d.kind) ||
  (d.kind === 'ConfigMap' && d.metadata.name.endsWith('-dashboard')) ||
  (d.kind === 'Service' && d.metadata.name.endsWith('-metrics'));

async function promtool(args: string[]): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await run(promtoolPath(), args, { maxBuffer: 16 << 20 });
    return { code: 0, out: stdout + stderr };
  } catch (error) {
    const failure = error as { code?: number; stdout?: string; stderr?: string };
    return { code: Number(failure.code ?? 1), out: `${failure.stdout ?? ''}${failure.stderr ?? ''}` };
  }
}

function ruleOf(docs: Rendered[]): { groups: { name: string; rules: Rule[] }[] } {
  const rule = docs.find((d) => d.kind === 'PrometheusRule');
  if (rule?.spec === undefined) throw new Error('no PrometheusRule rendered');
  return rule.spec as { groups: { name: string; rules: Rule[] }[] };
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agw-monitoring-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the monitoring values, rendered', () => {
  it('helm:monitoring-off — the default values render no monitoring object, no metrics port and no OTEL_* variable', async () => {
    const docs = await render('agw');
    expect(docs.filter(isMonitoring)).toEqual([]);
    const text = stringify(docs);
    expect(text).not.toContain('OTEL_');
    expect(text).not.toMatch(/name: metrics/);
  });

  it('helm:monitoring-on — each value renders its objects, with the metrics port on both Deployments without tracing', async () => {
    const docs = await render(
      'agw',
      ...MONITORING_ON,
      'metrics.serviceMonitor.labels.release=kube-prometheus-stack',
      'metrics.serviceMonitor.interval=15s',
      'metrics.serviceMonitor.scrapeTimeout=5s',
      'metrics.serviceMonitor.namespace=monitoring',
      'metrics.podMonitor.namespaceSelector.any=true',
      'metrics.dashboard.labels.team=platform',
      'metrics.prometheusRule.labels.release=kube-prometheus-stack',
      'json:metrics.prometheusRule.errorRatio.threshold=0.1',
    );
    const kinds = (kind: string) => docs.filter((d) => d.kind === kind);
    expect(kinds('ServiceMonitor').map((d) => d.metadata.name)).toEqual([
      'agw-agent-gateway',
      'agw-agent-gateway-operator',
    ]);
    expect(kinds('PodMonitor').map((d) => d.metadata.name)).toEqual([
      'agw-agent-gateway',
      'agw-agent-gateway-operator',
    ]);
    const serviceMonitor = kinds('ServiceMonitor')[0] as Rendered;
    expect(serviceMonitor.metadata.namespace).toBe('monitoring');
    expect(serviceMonitor.metadata.labels?.['release']).toBe('kube-prometheus-stack');
    expect(serviceMonitor.spec).toMatchObject({
      namespaceSelector: { matchNames: ['agw'] },
      endpoints: [{ port: 'metrics', path: '/metrics', interval: '15s', scrapeTimeout: '5s' }],
    });
    expect((kinds('PodMonitor')[1] as Rendered).spec).toMatchObject({
      namespaceSelector: { any: true },
      selector: { matchLabels: { 'app.kubernetes.io/component': 'operator' } },
      podMetricsEndpoints: [{ port: 'metrics', interval: '30s', scrapeTimeout: '10s' }],
    });
    // Each ServiceMonitor selects its metrics Service and nothing else (not the gateway's own Service).
    const services = kinds('Service');
    for (const monitor of kinds('ServiceMonitor')) {
      const wanted = (monitor.spec?.['selector'] as { matchLabels: Record<string, string> }).matchLabels;
      const matching = services.filter((s) =>
        Object.entries(wanted).every(([k, v]) => s.metadata.labels?.[k] === v),
      );
      expect(matching.map((s) => s.metadata.name)).toEqual([`${monitor.metadata.name}-metrics`]);
    }
    const dashboard = docs.find(
      (d) => d.kind === 'ConfigMap' && d.metadata.name === 'agw-agent-gateway-dashboard',
    );
    expect(dashboard?.metadata.labels).toMatchObject({ grafana_dashboard: '1', team: 'platform' });
    expect(JSON.parse(dashboard?.data?.['agent-gateway.json'] ?? '')).toEqual(
      JSON.parse(await readFile(join(CHART, 'dashboards/agent-gateway.json'), 'utf8')),
    );
    const rule = docs.find((d) => d.kind === 'PrometheusRule');
    expect(rule?.metadata.labels?.['release']).toBe('kube-prometheus-stack');
    expect(ruleOf(docs).groups[0]?.rules.find((r) => r.alert === 'AgentGatewayErrorRatioHigh')?.expr).toMatch(
      /\) > 0\.1$/,
    );
    // Metrics without tracing on both Deployments: the port, and the SDK on with no trace sampled.
    for (const name of ['agw-agent-gateway', 'agw-agent-gateway-operator']) {
      const deployment = docs.find((d) => d.kind === 'Deployment' && d.metadata.name === name) as Rendered;
      const container = (
        deployment.spec as {
          template: {
            spec: {
              containers: {
                env: { name: string; value?: string }[];
                ports: { name: string; containerPort: number }[];
              }[];
            };
          };
        }
      ).template.spec.containers[0];
      expect(container?.ports).toContainEqual({ name: 'metrics', containerPort: 9464, protocol: 'TCP' });
      const env = Object.fromEntries((container?.env ?? []).map((e) => [e.name, e.value]));
      expect(env).toMatchObject({
        OTEL_SDK_DISABLED: 'false',
        OTEL_TRACES_SAMPLER: 'always_off',
        OTEL_EXPORTER_PROMETHEUS_PORT: '9464',
        OTEL_EXPORTER_PROMETHEUS_HOST: '0.0.0.0',
      });
      expect(env['OTEL_EXPORTER_OTLP_ENDPOINT']).toBeUndefined();
    }
    // Only the operator's objects go when the operator is off.
    const noOperator = await render('agw', ...MONITORING_ON, 'operator.enabled=false');
    expect(noOperator.filter(isMonitoring).map((d) => d.metadata.name)).not.toContain(
      'agw-agent-gateway-operator',
    );
    expect(ruleOf(noOperator).groups[0]?.rules.map((r) => r.alert)).not.toContain(
      'AgentGatewayOperatorNotLeading',
    );
  });

  it('helm:monitoring-refusals — a monitor without a metrics port, a bad duration and an unknown key are refused with the value named', async () => {
    const noPort = await helmTemplate('agw', 'metrics.serviceMonitor.enabled=true', 'otel.prometheusPort=0');
    expect(noPort.code).not.toBe(0);
    expect(noPort.out).toContain('set otel.prometheusPort');
    const duration = await helmTemplate('agw', 'metrics.podMonitor.interval=thirty');
    expect(duration.code).not.toBe(0);
    expect(duration.out).toContain('/metrics/podMonitor/interval');
    const unknown = await helmTemplate('agw', 'metrics.prometheusRule.errorRatio.limit=1');
    expect(unknown.code).not.toBe(0);
    expect(unknown.out).toContain("additional properties 'limit'");
  });

  it('helm:monitoring-runbooks — every alert has a runbook_url pointing at its own section of docs/runbooks.md', async () => {
    const runbooks = await readFile('docs/runbooks.md', 'utf8');
    const headings = [...runbooks.matchAll(/^## (\S+)$/gm)].map((m) => (m[1] as string).toLowerCase());
    const rules = ruleOf(await render('agw', 'metrics.prometheusRule.enabled=true')).groups.flatMap(
      (g) => g.rules,
    );
    expect(rules.map((r) => r.alert).sort()).toEqual(Object.keys(ALERT_CASES).sort());
    for (const rule of rules) {
      expect(rule.annotations['runbook_url']).toBe(
        `https://github.com/agent-gateway/agent-gateway/blob/main/docs/runbooks.md#${rule.alert.toLowerCase()}`,
      );
      expect(headings).toContain(rule.alert.toLowerCase());
      expect(rule.annotations['summary']).toBeTruthy();
      expect(rule.annotations['description']).toBeTruthy();
    }
  });
});

describe('against the real prometheus-operator API', () => {
  let namespace: string;
  let elsewhere: string;
  beforeAll(async () => {
    // The CRDs are cluster-wide and harmless to the other test files sharing this API server.
    await kubectlOk(['apply', '--server-side', '-f', monitoringCrdsDir()]);
    // Retried: right after creation a CRD has no status.conditions yet, which `kubectl wait` refuses.
    await until('the CRDs to be established', async () =>
      (
        await kubectl([
          'wait',
          '--for=condition=Established',
          '--timeout=10s',
          'crd/servicemonitors.monitoring.coreos.com',
          'crd/podmonitors.monitoring.coreos.com',
          'crd/prometheusrules.monitoring.coreos.com',
        ])
      ).code === 0
        ? true
        : undefined,
    );
    namespace = await freshNamespace('agw-mon');
    elsewhere = await freshNamespace('agw-mon-obs');
  });
  afterAll(async () => {
    await kubectl(['delete', 'namespace', namespace, elsewhere, '--wait=false']);
  });

  it('helm:monitoring-dry-run — the rendered monitoring objects pass a server-side dry run (strict field validation)', async () => {
    const docs = (
      await render(
        namespace,
        ...MONITORING_ON,
        `metrics.serviceMonitor.namespace=${elsewhere}`,
        `metrics.prometheusRule.namespace=${elsewhere}`,
        'metrics.podMonitor.namespaceSelector.any=true',
      )
    ).filter(isMonitoring);
    expect(docs.map((d) => d.kind).sort()).toEqual([
      'ConfigMap',
      'PodMonitor',
      'PodMonitor',
      'PrometheusRule',
      'Service',
      'Service',
      'ServiceMonitor',
      'ServiceMonitor',
    ]);
    const file = join(dir, 'monitoring.yaml');
    await writeFile(file, docs.map((d) => stringify(d)).join('---\n'));
    const result = await kubectl(['apply', '--dry-run=server', '--validate=strict', '-f', file]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    for (const line of [
      `servicemonitor.monitoring.coreos.com/agw-agent-gateway created (server dry run)`,
      `podmonitor.monitoring.coreos.com/agw-agent-gateway-operator created (server dry run)`,
      `prometheusrule.monitoring.coreos.com/agw-agent-gateway created (server dry run)`,
    ])
      expect(result.stdout).toContain(line);

    // The dry run does validate: a misspelt field and a malformed duration are refused.
    const monitor = docs.find((d) => d.kind === 'ServiceMonitor') as Rendered;
    const endpoint = (monitor.spec?.['endpoints'] as Record<string, unknown>[])[0] as Record<string, unknown>;
    for (const [name, broken] of [
      ['field', { ...endpoint, scrapeIntervall: '30s' }],
      ['duration', { ...endpoint, interval: 'thirty seconds' }],
    ] as const) {
      const path = join(dir, `broken-${name}.yaml`);
      await writeFile(path, stringify({ ...monitor, spec: { ...monitor.spec, endpoints: [broken] } }));
      const refused = await kubectl(['apply', '--dry-run=server', '--validate=strict', '-f', path]);
      expect(refused.code, name).not.toBe(0);
      expect(refused.stderr, name).toMatch(
        name === 'field' ? /unknown field/ : /spec\.endpoints\[0\]\.interval/,
      );
    }
  });
});

describe('the rules, with promtool', () => {
  let rulesPath: string;
  let rules: Rule[];
  beforeAll(async () => {
    const spec = ruleOf(await render('agw', 'metrics.prometheusRule.enabled=true'));
    rules = spec.groups.flatMap((g) => g.rules);
    rulesPath = join(dir, 'rules.yaml');
    await writeFile(rulesPath, stringify(spec));
  });

  it('helm:monitoring-promtool-check — promtool check rules accepts the rendered groups', async () => {
    const result = await promtool(['check', 'rules', rulesPath]);
    expect(result.out).toContain(`SUCCESS: ${rules.length} rules found`);
    expect(result.code).toBe(0);
    // …and is a real checker: a broken expression fails.
    const broken = join(dir, 'broken-rules.yaml');
    await writeFile(
      broken,
      stringify({
        groups: [{ name: 'x', rules: [{ alert: 'X', expr: 'sum by (pod (agw_breaker_state)' }] }],
      }),
    );
    expect((await promtool(['check', 'rules', broken])).code).not.toBe(0);
  });

  it('helm:monitoring-promtool-test — promtool test rules: each alert fires when it should and stays silent when it should not', async () => {
    const tests = Object.entries(ALERT_CASES).flatMap(([alert, cases]) =>
      cases.map((c) => ({
        name: `${alert}: ${c.name}`,
        interval: '1m',
        input_series: c.series.map(([series, values]) => ({ series, values })),
        alert_rule_test: c.checks.map((check) => ({
          eval_time: check.at,
          alertname: alert,
          exp_alerts: check.firing.map((labels) => {
            const rule = rules.find((r) => r.alert === alert) as Rule;
            return {
              exp_labels: { ...rule.labels, ...labels },
              exp_annotations: expandAnnotations(rule.annotations, labels, check.value),
            };
          }),
        })),
      })),
    );
    expect(tests.length).toBeGreaterThanOrEqual(12);
    const unitPath = join(dir, 'rules.test.yaml');
    await writeFile(unitPath, stringify({ rule_files: [rulesPath], evaluation_interval: '1m', tests }));
    const result = await promtool(['test', 'rules', unitPath]);
    expect(result.out).toContain('SUCCESS');
    expect(result.code, result.out).toBe(0);

    // The unit tests can fail: the breaker alert expected one minute before its `for` has passed.
    const early = tests.map((t) =>
      t.name.startsWith('AgentGatewayBreakerOpen: fires')
        ? {
            ...t,
            alert_rule_test: t.alert_rule_test.map((a) => ({ ...a, eval_time: '4m' })),
          }
        : t,
    );
    const earlyPath = join(dir, 'early.test.yaml');
    await writeFile(
      earlyPath,
      stringify({ rule_files: [rulesPath], evaluation_interval: '1m', tests: early }),
    );
    const failed = await promtool(['test', 'rules', earlyPath]);
    expect(failed.code).not.toBe(0);
    expect(failed.out).toContain('AgentGatewayBreakerOpen');
  });

  it('helm:monitoring-dashboard-promql — every dashboard query parses as PromQL (promtool)', async () => {
    const dashboard = JSON.parse(await readFile(join(CHART, 'dashboards/agent-gateway.json'), 'utf8')) as {
      panels: { type: string; targets?: { expr: string }[] }[];
    };
    const exprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
    expect(exprs.length).toBeGreaterThan(15);
    // Grafana's variables, as Grafana substitutes them.
    const concrete = (expr: string) =>
      expr
        .replaceAll('$__rate_interval', '2m')
        .replaceAll('$namespace', 'agw')
        .replaceAll('$workspace', '.*');
    const path = join(dir, 'dashboard-rules.yaml');
    await writeFile(
      path,
      stringify({
        groups: [
          {
            name: 'dashboard',
            rules: exprs.map((expr, i) => ({ record: `dashboard:query_${i}`, expr: concrete(expr) })),
          },
        ],
      }),
    );
    const result = await promtool(['check', 'rules', path]);
    expect(result.code, result.out).toBe(0);
  });
});
