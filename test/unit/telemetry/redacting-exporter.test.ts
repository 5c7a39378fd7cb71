// The exporter guard drops what instrumentations may capture (statements, query strings, bodies,
// exception and status messages) and keeps the rest; and the leak scanner used by the integration
// test does find such content when it is not removed (the check can fail).
import { describe, expect, it } from 'vitest';
import type { ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import { RedactingExporter } from '../../../gateway/telemetry/redacting-exporter.js';
import { findLeaks } from '../../support/leak-scan.js';

const QUERY = 'where does the heliotrope ledger live';

function capturedSpan(): ReadableSpan {
  return {
    name: 'pg.query',
    attributes: {
      'db.statement': `SELECT * FROM chunks WHERE body @@ websearch_to_tsquery('${QUERY}')`,
      'db.query.text': `SELECT '${QUERY}'`,
      'url.full': `http://user:hunter2hunter2@upstream.test/mcp?q=${encodeURIComponent(QUERY)}`,
      'url.query': `q=${QUERY}`,
      'http.request.body': `{"query":"${QUERY}"}`,
      'db.system.name': 'postgresql',
      'server.port': 5432,
    },
    events: [
      {
        name: 'exception',
        time: [0, 0],
        attributes: { 'exception.type': 'Error', 'exception.message': `no match for ${QUERY}` },
        droppedAttributesCount: 0,
      },
    ],
    status: { code: 2, message: `failed: ${QUERY}` },
  } as unknown as ReadableSpan;
}

class Capturing implements SpanExporter {
  readonly exported: ReadableSpan[] = [];
  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.exported.push(...spans);
    done({ code: 0 });
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

const asText = (span: ReadableSpan) =>
  JSON.stringify({ name: span.name, attributes: span.attributes, events: span.events, status: span.status });

describe('RedactingExporter', () => {
  it('otel:redaction-guard — a body, statement or query captured by an instrumentation never leaves; the scan would have caught it', () => {
    const raw = capturedSpan();
    // Without the guard the scanner finds the content: the check can fail.
    expect(
      findLeaks(
        [asText(raw)],
        [
          { label: 'query', value: QUERY },
          { label: 'password', value: 'hunter2hunter2', windows: true },
        ],
      ).length,
    ).toBeGreaterThan(0);

    const inner = new Capturing();
    new RedactingExporter(inner).export([raw], () => undefined);
    const [span] = inner.exported as [ReadableSpan];
    expect(
      findLeaks(
        [asText(span)],
        [
          { label: 'query', value: QUERY },
          { label: 'heliotrope', value: 'heliotrope' },
          { label: 'password', value: 'hunter2hunter2', windows: true },
        ],
      ),
    ).toEqual([]);
    expect(span.attributes).toEqual({
      'url.full': 'http://upstream.test/mcp',
      'db.system.name': 'postgresql',
      'server.port': 5432,
    });
    expect(span.events[0]?.attributes).toEqual({ 'exception.type': 'Error' });
    expect(span.status).toEqual({ code: 2 });
    expect(span.name).toBe('pg.query');
  });
});
