// The MCP server span of a request whose client sent trace context in `params._meta` (SEP-414; the
// OTel MCP conventions: "use context extracted from MCP params._meta as a parent for MCP server span
// and link current ambient context"). The HTTP server span has started by then, before the body was
// read, from the `traceparent` header or as a new root, and a started span cannot change its parent:
// so this span, named `{mcp.method.name} {target}`, is the child of the client's span and everything
// the request does below it (the upstream hop, the upstream's own context) is in the client's trace.
// It links to the HTTP span and the HTTP span links back. `_meta` wins over the header for the MCP
// request; the header still continues the HTTP span. Without valid `_meta` context nothing is made.
import { context, isSpanContextValid, propagation, SpanKind, trace, type Link } from '@opentelemetry/api';
import { telemetryStarted } from './telemetry-handle.js';
import { traceCarrierOf } from './trace-carrier.js';
import { requestSpan, tracer, withMcpServerSpan } from './tracing.js';

/** What the span says of the request: never its params. */
export interface McpSpanRequest {
  readonly method: string;
  readonly id: string | number;
  readonly version: string;
  readonly era: string;
}

/** A client's method is its own text: a span name takes it only when it looks like an MCP method. */
const METHOD_NAME = /^[a-z]+(?:\/[a-zA-Z]+){0,3}$/;

/** Runs `work` (the dispatch and the answer) in the MCP server span `_meta` asks for, if any. */
export function inMcpServerSpan<T>(
  meta: unknown,
  request: McpSpanRequest,
  work: () => Promise<T>,
): Promise<T> {
  if (!telemetryStarted()) return work();
  const carrier = traceCarrierOf(meta);
  if (carrier === undefined) return work();
  const ambient = context.active();
  // The client's `_meta` is the whole context of the MCP request: baggage from the header stays
  // with the HTTP span.
  const parent = propagation.extract(propagation.deleteBaggage(ambient), carrier);
  const remote = trace.getSpanContext(parent);
  // The configured propagators may not read W3C keys (OTEL_PROPAGATORS): then there is no parent.
  if (remote === undefined || !isSpanContextValid(remote)) return work();
  const transport = trace.getSpanContext(ambient);
  const links: Link[] =
    transport !== undefined && isSpanContextValid(transport) ? [{ context: transport }] : [];
  const method = METHOD_NAME.test(request.method) && request.method.length <= 40 ? request.method : 'mcp';
  const span = tracer.startSpan(
    method,
    {
      kind: SpanKind.SERVER,
      links,
      attributes: {
        'mcp.method.name': request.method,
        'jsonrpc.request.id': String(request.id),
        'mcp.protocol.version': request.version,
        'agw.mcp.era': request.era,
        'network.protocol.name': 'http',
        'network.transport': 'tcp',
      },
    },
    parent,
  );
  if (span.isRecording()) requestSpan()?.addLink({ context: span.spanContext() });
  return context.with(withMcpServerSpan(parent, span, method), work).finally(() => span.end());
}
