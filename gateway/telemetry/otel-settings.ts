// Whether and how this process exports telemetry (issue 12), from the standard OTEL_* variables
// only. Off by default (the embedded shape needs no collector): on when OTEL_SDK_DISABLED is
// "false", or when an OTLP endpoint or exporter is named and OTEL_SDK_DISABLED is not "true".
export interface OtelSettings {
  readonly enabled: boolean;
  /** http/protobuf (default), http/json or grpc. */
  readonly protocol: 'http/protobuf' | 'http/json' | 'grpc';
  /** Prometheus exposition port (OTEL_EXPORTER_PROMETHEUS_PORT, default 9464; 0 disables). */
  readonly prometheusPort: number;
  readonly prometheusHost: string;
}

export function otelSettings(env: NodeJS.ProcessEnv): OtelSettings {
  const disabled = env['OTEL_SDK_DISABLED']?.trim().toLowerCase();
  const named =
    env['OTEL_EXPORTER_OTLP_ENDPOINT'] !== undefined ||
    env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'] !== undefined ||
    (env['OTEL_TRACES_EXPORTER'] !== undefined && env['OTEL_TRACES_EXPORTER'] !== 'none');
  const enabled = disabled === 'false' || (disabled !== 'true' && named);
  const protocolText = (
    env['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'] ??
    env['OTEL_EXPORTER_OTLP_PROTOCOL'] ??
    'http/protobuf'
  ).trim();
  const protocol = protocolText === 'grpc' || protocolText === 'http/json' ? protocolText : 'http/protobuf';
  const port = Number(env['OTEL_EXPORTER_PROMETHEUS_PORT'] ?? '9464');
  return {
    enabled,
    protocol,
    prometheusPort: Number.isInteger(port) && port >= 0 && port <= 65_535 ? port : 9464,
    // Loopback unless set (issue 28.6): the exposition has no authentication, and the embedded
    // gateway listens on loopback too. The Helm chart sets 0.0.0.0 so Prometheus can scrape pods.
    prometheusHost: env['OTEL_EXPORTER_PROMETHEUS_HOST']?.trim() || '127.0.0.1',
  };
}
