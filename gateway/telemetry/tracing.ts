// The gateway's own spans and span attributes (issue 12), through @opentelemetry/api only: without
// a started SDK every call here is a no-op. Attribute names follow the OpenTelemetry semantic
// conventions where they exist (HTTP, and the GenAI/MCP conventions: `mcp.method.name`,
// `gen_ai.tool.name`, `gen_ai.operation.name`, `jsonrpc.request.id`, `error.type`); the gateway's
// own are under `agw.`. Never content: no arguments, results, queries, snippets, keys, credentials
// or session ids — sizes and counts where they matter.
import {
  context,
  createContextKey,
  INVALID_SPAN_CONTEXT,
  isSpanContextValid,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
} from '@opentelemetry/api';
import { GATEWAY_VERSION } from '../version.js';
import { telemetryStarted } from './telemetry-handle.js';
import { TRACE_META_KEYS, traceCarrierOf } from './trace-carrier.js';

export const tracer = trace.getTracer('agent-gateway', GATEWAY_VERSION);
export { SpanKind };

/** Where the request's HTTP server span (server-span.ts) and its MCP server span (mcp-server-span.ts)
 * sit in the context: a request continued from `_meta` has both, in different traces. */
const HTTP_SPAN = createContextKey('agw.http-server-span');
const MCP_SPAN = createContextKey('agw.mcp-server-span');
/** The method an MCP server span was started for: its name gains the target once one is known. */
const mcpMethods = new WeakMap<Span, string>();

export function withHttpServerSpan(active: Context, span: Span): Context {
  return trace.setSpan(active, span).setValue(HTTP_SPAN, span);
}

export function withMcpServerSpan(active: Context, span: Span, method: string): Context {
  mcpMethods.set(span, method);
  return trace.setSpan(active, span).setValue(MCP_SPAN, span);
}

/** The request's HTTP server span (else the active span), if it is recording. */
export function requestSpan(): Span | undefined {
  const active = context.active();
  const span = (active.getValue(HTTP_SPAN) as Span | undefined) ?? trace.getSpan(active);
  return span?.isRecording() === true ? span : undefined;
}

export function mcpServerSpan(): Span | undefined {
  const span = context.active().getValue(MCP_SPAN) as Span | undefined;
  return span?.isRecording() === true ? span : undefined;
}

/** Sets attributes on the request's span, and on its MCP server span when it has one (an error
 * class marks that one failed, as the semantic conventions ask); skips undefined values. */
export function annotateRequest(attributes: Record<string, string | number | boolean | undefined>): void {
  const http = requestSpan();
  const mcp = mcpServerSpan();
  for (const span of [http, mcp]) {
    if (span === undefined) continue;
    for (const [key, value] of Object.entries(attributes))
      if (value !== undefined) span.setAttribute(key, value);
  }
  if (mcp === undefined) return;
  if (attributes['error.type'] !== undefined) mcp.setStatus({ code: SpanStatusCode.ERROR });
  const tool = attributes['gen_ai.tool.name'];
  if (typeof tool === 'string') mcp.updateName(`${mcpMethods.get(mcp) ?? 'mcp'} ${tool}`);
}

/** The class of an error for `error.type`: the catalogue's class when it has one, else its name. */
function errorTypeOf(error: unknown): string {
  const withClass = error as
    { errorClass?: unknown; entry?: { errorClass?: unknown }; name?: unknown } | undefined;
  if (typeof withClass?.errorClass === 'string') return withClass.errorClass;
  if (typeof withClass?.entry?.errorClass === 'string') return withClass.entry.errorClass;
  return typeof withClass?.name === 'string' ? withClass.name : 'Error';
}

const NOT_RECORDING = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/** Runs `work` in a child span that ends with it; a thrown error marks the span (class, no message).
 * No span is made when none would be recorded: without the SDK, or inside a request whose span was
 * not sampled (with the standard samplers a child of an unsampled span is never sampled). That
 * keeps the 99 % of requests that 1 % sampling leaves out nearly free (issues 12 and 13). */
export function inSpan<T>(
  name: string,
  options: {
    kind?: SpanKind;
    /** The span's attributes, or a function of them, called only when the span is recorded. */
    attributes?: Attributes | (() => Attributes);
    classify?: (error: unknown) => string;
  },
  work: (span: Span) => Promise<T>,
): Promise<T> {
  const active = trace.getActiveSpan();
  if (active === undefined ? !telemetryStarted() : !active.isRecording())
    return work(active ?? NOT_RECORDING);
  return tracer.startActiveSpan(
    name,
    {
      kind: options.kind ?? SpanKind.INTERNAL,
      attributes:
        typeof options.attributes === 'function' ? options.attributes() : (options.attributes ?? {}),
    },
    async (span) => {
      try {
        return await work(span);
      } catch (error) {
        span.setStatus({ code: SpanStatusCode.ERROR });
        span.setAttribute('error.type', options.classify?.(error) ?? errorTypeOf(error));
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

/** The trace context an upstream MCP request carries in its `_meta` (SEP-414: `traceparent`,
 * `tracestate`, `baggage` as plain keys), given the client's own `_meta`. With telemetry on it is
 * the gateway's current context, sampled or not, so the upstream's span is a child of the gateway's
 * (and agrees with the HTTP header the request carries); the client's keys are never relayed as they
 * came. With telemetry off the gateway takes no part in the trace: the client's keys pass on if
 * they are valid W3C values, so the upstream still joins the client's trace. */
export function upstreamTraceMeta(clientMeta: unknown): Record<string, string> {
  if (!telemetryStarted()) return { ...traceCarrierOf(clientMeta) };
  const span = trace.getActiveSpan();
  if (span === undefined || !isSpanContextValid(span.spanContext())) return {};
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  const out: Record<string, string> = {};
  for (const key of TRACE_META_KEYS) if (carrier[key] !== undefined) out[key] = carrier[key];
  return out;
}

/** Marks an upstream request whose trace context the gateway injected itself (see
 * `propagatedRequest`); the undici instrumentation leaves such requests alone. */
const PROPAGATED = createContextKey('agw.upstream-context-propagated');

export function isPropagatedByGateway(): boolean {
  return context.active().getValue(PROPAGATED) === true;
}

/** Sends an upstream request the gateway makes itself (the 2026 relay). Inside a request that is
 * not being recorded the gateway writes the trace context (with its not-sampled flag) into
 * `headers` and keeps the undici instrumentation out: its span would not be recorded either, and
 * it cost ~25 µs a request. Sampled requests, and work outside any request, get the
 * instrumentation's client span as before. */
export function propagatedRequest<T>(headers: Record<string, string>, send: () => T): T {
  const active = trace.getActiveSpan();
  if (active === undefined || active.isRecording()) return send();
  propagation.inject(context.active(), headers);
  return context.with(context.active().setValue(PROPAGATED, true), send);
}
