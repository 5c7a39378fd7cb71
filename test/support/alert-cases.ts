// Unit cases for the chart's alerts (issue 25; docs/runbooks.md), run by `promtool test rules` in
// helm-monitoring.test.ts: per alert, input series (promtool's expanding notation, one sample a
// minute) and the alerts expected at given times — firing, and silent where a naive rule would fire.
// The release namespace is `agw`; series of `other` must never count.

export interface AlertCheck {
  /** promtool eval_time. */
  readonly at: string;
  /** The labels each firing alert has besides the rule's own (empty: silent). */
  readonly firing: readonly Record<string, string>[];
  /** The alert's $value as its annotations print it. */
  readonly value?: string;
}

export interface AlertCase {
  readonly name: string;
  readonly series: readonly (readonly [string, string])[];
  readonly checks: readonly AlertCheck[];
}

const breaker = (ns: string, source: string) =>
  `agw_breaker_state{namespace="${ns}",pod="g-1",agw_workspace="acme",agw_source="${source}"}`;
const requests = (pod: string, route: string, status: string, errorType?: string) =>
  `agw_requests_total{namespace="agw",pod="${pod}",http_route="${route}",http_response_status_code="${status}"${
    errorType === undefined ? '' : `,error_type="${errorType}"`
  }}`;
const gauge = (name: string, pod: string, ns = 'agw') => `${name}{namespace="${ns}",pod="${pod}"}`;

export const ALERT_CASES: Readonly<Record<string, readonly AlertCase[]>> = {
  AgentGatewayBreakerOpen: [
    {
      name: 'fires for a source open or half-open for 5m, in the release namespace only',
      series: [
        [breaker('agw', 'docs'), '2x10'],
        [breaker('agw', 'probing'), '1 2 1 2 1 2 1 2 1 2 1'],
        [breaker('agw', 'fine'), '0x10'],
        [breaker('other', 'docs'), '2x10'],
      ],
      checks: [
        { at: '4m', firing: [] },
        {
          at: '6m',
          firing: [
            { namespace: 'agw', agw_workspace: 'acme', agw_source: 'docs' },
            { namespace: 'agw', agw_workspace: 'acme', agw_source: 'probing' },
          ],
        },
      ],
    },
    {
      name: 'silent for a breaker that closes again every few minutes',
      series: [[breaker('agw', 'flapping'), '2 2 2 0 2 2 2 0 2 2 2']],
      checks: [{ at: '10m', firing: [] }],
    },
  ],
  AgentGatewayErrorRatioHigh: [
    {
      name: 'fires when 10 % of the requests fail for 10m; health probes do not dilute it',
      series: [
        [requests('g-1', '/mcp', '200'), '0+90x30'],
        [requests('g-1', '/mcp', '200', 'upstream_reachability'), '0+6x30'],
        [requests('g-2', '/agent/search', '500', 'internal'), '0+4x30'],
        [requests('g-1', '/healthz', '200'), '0+1000x30'],
      ],
      checks: [
        { at: '8m', firing: [] },
        { at: '20m', firing: [{ namespace: 'agw' }], value: '10%' },
      ],
    },
    {
      name: 'silent for client mistakes and for errors below the threshold',
      series: [
        [requests('g-1', '/mcp', '200'), '0+90x30'],
        [requests('g-1', '/mcp', '400', 'request'), '0+50x30'],
        [requests('g-1', '/mcp', '200', 'upstream_reachability'), '0+2x30'],
      ],
      checks: [{ at: '20m', firing: [] }],
    },
  ],
  AgentGatewayConfigReloadFailed: [
    {
      name: 'fires while the failure counter has grown within 15m, not for a steady one',
      series: [
        [gauge('agw_config_reload_failures_total', 'g-2'), '1x20 2x20'],
        [gauge('agw_config_reload_failures_total', 'g-3'), '3x40'],
      ],
      checks: [
        { at: '18m', firing: [] },
        { at: '22m', firing: [{ namespace: 'agw', pod: 'g-2' }] },
        { at: '40m', firing: [] },
      ],
    },
    {
      name: 'fires at the first failure, when the counter appears',
      series: [[gauge('agw_config_reload_failures_total', 'g-1'), '_x20 1x20']],
      checks: [
        { at: '18m', firing: [] },
        { at: '21m', firing: [{ namespace: 'agw', pod: 'g-1' }] },
        { at: '40m', firing: [] },
      ],
    },
  ],
  AgentGatewayConfigSkew: [
    {
      name: 'fires when two replicas serve different configs for 10m',
      series: [
        [gauge('agw_config_digest', 'g-1'), '111x30'],
        [gauge('agw_config_digest', 'g-2'), '111x4 222x25'],
      ],
      checks: [
        { at: '12m', firing: [] },
        { at: '16m', firing: [{ namespace: 'agw' }], value: '2' },
      ],
    },
    {
      name: 'silent through a rolling config change',
      series: [
        [gauge('agw_config_digest', 'g-1'), '111x6 222x23'],
        [gauge('agw_config_digest', 'g-2'), '111x4 222x25'],
      ],
      checks: [{ at: '20m', firing: [] }],
    },
  ],
  AgentGatewayOperatorNotLeading: [
    {
      name: 'fires when no replica has led for 5m',
      series: [
        [gauge('agw_operator_leader', 'op-1'), '1x5 0x20'],
        [gauge('agw_operator_leader', 'op-2'), '0x25'],
      ],
      checks: [
        { at: '9m', firing: [] },
        { at: '12m', firing: [{ namespace: 'agw' }] },
      ],
    },
    {
      name: 'fires when no operator replica is scraped at all',
      series: [[gauge('agw_operator_leader', 'op-1', 'other'), '1x20']],
      checks: [{ at: '6m', firing: [{ namespace: 'agw' }] }],
    },
    {
      name: 'silent while one replica leads',
      series: [
        [gauge('agw_operator_leader', 'op-1'), '1x20'],
        [gauge('agw_operator_leader', 'op-2'), '0x20'],
      ],
      checks: [{ at: '12m', firing: [] }],
    },
  ],
  AgentGatewayRedisUnavailable: [
    {
      name: 'fires for a replica without usable Redis for 2m',
      series: [
        [gauge('agw_shared_state_up', 'g-1'), '1x3 0x10'],
        [gauge('agw_shared_state_up', 'g-2'), '1x13'],
      ],
      checks: [
        { at: '5m', firing: [] },
        { at: '7m', firing: [{ namespace: 'agw', pod: 'g-1' }] },
      ],
    },
    {
      name: 'silent for a one-minute blip',
      series: [[gauge('agw_shared_state_up', 'g-1'), '1 1 0 1 1 1 1 1']],
      checks: [{ at: '7m', firing: [] }],
    },
  ],
};

/** The annotations as Prometheus expands them for an alert with these labels and value. */
export function expandAnnotations(
  annotations: Readonly<Record<string, string>>,
  labels: Readonly<Record<string, string>>,
  value = '',
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(annotations).map(([name, text]) => [
      name,
      text
        .replace(/\{\{ \$labels\.(\w+) \}\}/g, (_, label: string) => labels[label] ?? '')
        .replace(/\{\{ \$value( \| humanizePercentage)? \}\}/g, value),
    ]),
  );
}
