// The last guard before spans leave the process (issue 12): whatever an instrumentation recorded,
// no statement text, query string, URL credentials, status or exception message is exported. SQL
// and Redis statements can carry literals and keys, query strings carry search text, and error
// messages can quote upstream answers; the span keeps its name, kind, timing, status code and
// every other attribute. Our own spans never set such attributes; this catches the libraries'.
import type { ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter, TimedEvent } from '@opentelemetry/sdk-trace';
import type { Attributes } from '@opentelemetry/api';

const DROPPED = new Set([
  'db.statement',
  'db.query.text',
  'db.query.summary',
  'url.query',
  'http.request.body',
  'http.response.body',
  'exception.message',
  'rpc.message',
]);
const DROPPED_PREFIXES = ['db.query.parameter.', 'http.request.header.', 'http.response.header.'];
const URL_KEYS = new Set(['url.full', 'http.url', 'http.target', 'url.original']);

/** A URL without userinfo, query and fragment; a relative target without its query. */
function bareUrl(value: string): string {
  const cut = value.split(/[?#]/, 1)[0] ?? '';
  return cut.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, '$1');
}

export function redactAttributes(attributes: Attributes): Attributes {
  const out: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) {
    if (DROPPED.has(key) || DROPPED_PREFIXES.some((prefix) => key.startsWith(prefix))) continue;
    out[key] = URL_KEYS.has(key) && typeof value === 'string' ? bareUrl(value) : value;
  }
  return out;
}

function redactEvent(event: TimedEvent): TimedEvent {
  return event.attributes === undefined
    ? event
    : { ...event, attributes: redactAttributes(event.attributes) };
}

export function redactSpan(span: ReadableSpan): ReadableSpan {
  return Object.create(span, {
    attributes: { value: redactAttributes(span.attributes), enumerable: true },
    events: { value: span.events.map(redactEvent), enumerable: true },
    status: { value: { code: span.status.code }, enumerable: true },
  }) as ReadableSpan;
}

export class RedactingExporter implements SpanExporter {
  constructor(private readonly inner: SpanExporter) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans.map(redactSpan), done);
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}
