// Links between the requests of one long-running piece of work (issue 43: a task's tasks/get,
// tasks/result and tasks/cancel link to the span of the tools/call that created it). The creating
// span's context travels as a W3C traceparent sealed into the task id (never shown to the client in
// clear); a later request adds it as a link to its own spans. Nothing when telemetry is off.
import { context, isSpanContextValid, trace, TraceFlags } from '@opentelemetry/api';
import { mcpServerSpan, requestSpan } from './tracing.js';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The traceparent of the current span (the MCP server span when the client sent `_meta` context,
 * else the HTTP server span), or '' when none is recording. */
export function currentTraceparent(): string {
  const span = mcpServerSpan() ?? requestSpan() ?? trace.getSpan(context.active());
  const spanContext = span?.spanContext();
  if (spanContext === undefined || !isSpanContextValid(spanContext)) return '';
  const flags = (spanContext.traceFlags & TraceFlags.SAMPLED).toString(16).padStart(2, '0');
  return `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`;
}

/** Links this request's spans (HTTP server and MCP server) to the span `traceparent` names. */
export function linkRequestTo(traceparent: string): void {
  const match = TRACEPARENT.exec(traceparent);
  if (match === null) return;
  const linked = {
    traceId: match[1] as string,
    spanId: match[2] as string,
    traceFlags: Number.parseInt(match[3] as string, 16),
    isRemote: true,
  };
  if (!isSpanContextValid(linked)) return;
  const spans = new Set([requestSpan(), mcpServerSpan()]);
  for (const span of spans) span?.addLink({ context: linked, attributes: { 'agw.link': 'task.created_by' } });
}
