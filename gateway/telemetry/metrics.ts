// The gateway's and the operator's metrics (issue 12), through @opentelemetry/api: exported for
// Prometheus (its own port) when the SDK runs, no-ops otherwise. Labels stay bounded: routes,
// status codes, error classes, source and workspace names from the config, limit policies — never
// tool arguments, queries or key ids. Instruments are created on first use, after bin has started
// the SDK (the metrics API has no proxy: a meter taken earlier would stay a no-op).
import { metrics, type Attributes, type Counter, type Histogram, type Meter } from '@opentelemetry/api';
import { GATEWAY_VERSION } from '../version.js';

let meter: Meter | undefined;
const counters = new Map<string, Counter>();
const histograms = new Map<string, Histogram>();

function theMeter(): Meter {
  meter ??= metrics.getMeter('agent-gateway', GATEWAY_VERSION);
  return meter;
}

const DESCRIPTIONS: Record<string, { description: string; unit?: string }> = {
  'agw.requests': { description: 'Requests by route, method, status and error class.' },
  'agw.request.duration': { description: 'Request duration by route, status and error class.', unit: 's' },
  'agw.upstream.calls': { description: 'Upstream MCP calls by workspace, source, method and error class.' },
  'agw.upstream.duration': {
    description: 'Upstream MCP calls by source, method and error class.',
    unit: 's',
  },
  'agw.discovery.lookups': { description: 'Discovery cache lookups by result (hit or miss).' },
  'agw.ratelimit.refusals': { description: 'Requests refused by a rate or usage limit, by policy.' },
  'agw.config.reload.failures': { description: 'Config versions rejected (the last good one kept).' },
  'agw.sync.documents': { description: 'Documents added or updated by data-source syncs.' },
  'agw.sync.failures': { description: 'Data-source sync runs that failed.' },
  'agw.operator.reconcile.duration': { description: 'Operator reconciles by outcome.', unit: 's' },
};

export function count(name: string, attributes: Attributes = {}, value = 1): void {
  let counter = counters.get(name);
  if (counter === undefined) {
    counter = theMeter().createCounter(name, DESCRIPTIONS[name] ?? {});
    counters.set(name, counter);
  }
  counter.add(value, attributes);
}

export function recordDuration(name: string, seconds: number, attributes: Attributes = {}): void {
  let histogram = histograms.get(name);
  if (histogram === undefined) {
    histogram = theMeter().createHistogram(name, DESCRIPTIONS[name] ?? {});
    histograms.set(name, histogram);
  }
  histogram.record(seconds, attributes);
}

/** Values read when metrics are collected (gauges): each callback yields its current points. */
export function observeGauge(
  name: string,
  description: string,
  points: () => readonly { value: number; attributes?: Attributes }[],
): void {
  theMeter()
    .createObservableGauge(name, { description })
    .addCallback((result) => {
      for (const point of points()) result.observe(point.value, point.attributes ?? {});
    });
}
