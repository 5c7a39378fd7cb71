// The gateway's and the operator's metrics (issue 12), through @opentelemetry/api: exported for
// Prometheus (its own port) when the SDK runs, no-ops otherwise. Labels stay bounded: routes,
// status codes, error classes, source and workspace names from the config, limit policies — never
// tool arguments, queries or key ids. Instruments are created on first use, after bin has started
// the SDK (the metrics API has no proxy: a meter taken earlier would stay a no-op).
import { metrics, type Attributes, type Histogram, type Meter } from '@opentelemetry/api';
import { GATEWAY_VERSION } from '../version.js';
import { telemetryStarted } from './telemetry-handle.js';

let meter: Meter | undefined;
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
  'agw.discovery.probes': {
    description: 'Background listings of failing MCP sources, by result (recovered or failed).',
  },
  'agw.ratelimit.refusals': { description: 'Requests refused by a rate or usage limit, by policy.' },
  'agw.config.reload.failures': { description: 'Config versions rejected (the last good one kept).' },
  'agw.sync.documents': { description: 'Documents added or updated by data-source syncs.' },
  'agw.sync.failures': { description: 'Data-source sync runs that failed.' },
  'agw.audit.records': { description: 'Audit records accepted by the sink, by sink (stderr or file).' },
  'agw.audit.dropped': { description: 'Audit records dropped, by reason (queue_full or write_failed).' },
  'agw.guardrail.masked': { description: 'Credentials masked in results and knowledge answers, by kind.' },
  'agw.guardrail.hook.decisions': {
    description:
      'Guardrail hook answers by workspace, hook, phase and decision (or failed_open/failed_closed).',
  },
  'agw.guardrail.hook.duration': { description: 'Guardrail hook round trips by decision.', unit: 's' },
  'agw.operator.reconcile.duration': { description: 'Operator reconciles by outcome.', unit: 's' },
};

/** One counter series: its labels and its running total. */
interface Tally {
  readonly attributes: Attributes;
  value: number;
}

const tallies = new Map<string, Map<string, Tally>>();

/** The series key of a label set (label order is fixed per call site). */
function seriesKey(attributes: Attributes): string {
  let key = '';
  for (const label in attributes) key += `${label}\u0000${String(attributes[label])}\u0001`;
  return key;
}

/** Adds to a counter. Counters are tallied here and read by the SDK when metrics are collected
 * (an asynchronous counter): a synchronous counter hashed its labels on every add, which was a
 * good part of the per-request cost of metrics (issue 12). Nothing is kept without the SDK. */
export function count(name: string, attributes: Attributes = {}, value = 1): void {
  if (!telemetryStarted()) return;
  let series = tallies.get(name);
  if (series === undefined) {
    const created = new Map<string, Tally>();
    series = created;
    tallies.set(name, created);
    theMeter()
      .createObservableCounter(name, DESCRIPTIONS[name] ?? {})
      .addCallback((result) => {
        for (const tally of created.values()) result.observe(tally.value, tally.attributes);
      });
  }
  const key = seriesKey(attributes);
  const tally = series.get(key);
  if (tally === undefined) series.set(key, { attributes: { ...attributes }, value });
  else tally.value += value;
}

export function recordDuration(name: string, seconds: number, attributes: Attributes = {}): void {
  if (!telemetryStarted()) return;
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
