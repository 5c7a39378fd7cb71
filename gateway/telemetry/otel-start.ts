// Starts the OpenTelemetry SDK (issue 12). bin/agent-gateway.js imports this module before anything
// else, and only when otel-settings says telemetry is on, after registering the ESM loader hook,
// so the http, undici, pg and ioredis instrumentations see every module the gateway loads.
// Spans leave through the RedactingExporter over OTLP (protocol from OTEL_EXPORTER_OTLP_PROTOCOL);
// metrics are exposed for Prometheus on their own port. Sampling, resource attributes and endpoints
// come from the standard OTEL_* variables.
import { getNodeAutoInstrumentations } from '@opentelemetry/auto-instrumentations-node';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { OTLPTraceExporter as GrpcExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { AggregationType } from '@opentelemetry/sdk-metrics';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace';
import { otelSettings } from './otel-settings.js';
import { RedactingExporter } from './redacting-exporter.js';
import { isPropagatedByGateway } from './tracing.js';
import { setTelemetryShutdown } from './telemetry-handle.js';

const settings = otelSettings(process.env);
const role = process.argv.includes('operator') ? 'agent-gateway-operator' : 'agent-gateway';

function traceExporter(): SpanExporter {
  if (settings.protocol === 'grpc') return new GrpcExporter();
  if (settings.protocol === 'http/json') return new JsonExporter();
  return new ProtoExporter();
}

// Only the instrumentations the gateway needs; the rest of the bundle stays off.
process.env['OTEL_NODE_ENABLED_INSTRUMENTATIONS'] ??= 'http,undici,pg,ioredis';
const scheduledDelayMillis = Number(process.env['OTEL_BSP_SCHEDULE_DELAY'] ?? '5000');

const sdk = new NodeSDK({
  serviceName: process.env['OTEL_SERVICE_NAME'] ?? role,
  spanProcessors: [
    new BatchSpanProcessor({
      exporter: new RedactingExporter(traceExporter()),
      scheduledDelayMillis: Number.isFinite(scheduledDelayMillis) ? scheduledDelayMillis : 5000,
    }),
  ],
  ...(settings.prometheusPort === 0
    ? {}
    : {
        metricReaders: [
          new PrometheusExporter({ port: settings.prometheusPort, host: settings.prometheusHost }),
        ],
      }),
  // The client instrumentations' duration histogram repeats agw.upstream.duration (which carries
  // the source). The server side is the gateway's own (agw.request.duration, with the route).
  views: [{ instrumentName: 'http.client.request.duration', aggregation: { type: AggregationType.DROP } }],
  instrumentations: [
    getNodeAutoInstrumentations({
      // Outgoing node:http only: the gateway starts each request's server span itself
      // (server-span.ts), at a fraction of the cost for the requests sampling leaves out.
      '@opentelemetry/instrumentation-http': { disableIncomingRequestInstrumentation: true },
      // Upstream requests the gateway already wrote the trace context into (unsampled relays).
      '@opentelemetry/instrumentation-undici': { ignoreRequestHook: () => isPropagatedByGateway() },
      '@opentelemetry/instrumentation-pg': { enhancedDatabaseReporting: false, requireParentSpan: true },
      // The command name only: arguments are keys and values.
      '@opentelemetry/instrumentation-ioredis': {
        dbStatementSerializer: (command) => command,
        requireParentSpan: true,
      },
    }),
  ],
});
sdk.start();
setTelemetryShutdown(() => sdk.shutdown());
