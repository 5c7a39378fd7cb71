// The audit context of one request (issue 29): what the handlers learn as they go — the MCP method,
// the source and name a call points at, a denial and its reason — noted here in a line each, like
// span annotations (tracing.ts `annotateRequest`). The edge's audit hook creates the context when
// the request arrives and turns it into exactly one record when the response ends; notes made after
// that (a bridged call outliving its request) are ignored. Without an audit sink nothing is noted.
import { AsyncLocalStorage } from 'node:async_hooks';
import { isSpanContextValid, trace } from '@opentelemetry/api';
import type { DenialReason, TargetKind } from './audit-record.js';
import { telemetryStarted } from './telemetry-handle.js';

export interface AuditNotes {
  method?: string;
  era?: 'modern' | 'legacy';
  source?: string | undefined;
  target?: { kind: TargetKind; name?: string | undefined; requested?: string | undefined };
  relayedBy?: 'call_tool';
  denial?: DenialReason;
  /** The CEL policy that refused the call (denial `policy`; issue 41). */
  policy?: string;
  /** A tool result with `isError: true`: the tool ran and failed (class `tool_execution`). */
  toolError?: boolean;
  /** The caller was asked to connect its account at a `user` source (issue 42). */
  consentRequired?: boolean;
  streamed?: boolean;
}

export interface AuditContext {
  readonly startedAt: number;
  readonly startedPerf: number;
  readonly traceId: string | undefined;
  readonly notes: AuditNotes;
  finished: boolean;
}

const store = new AsyncLocalStorage<AuditContext>();

export function newAuditContext(traceId: string | undefined): AuditContext {
  return { startedAt: Date.now(), startedPerf: performance.now(), traceId, notes: {}, finished: false };
}

/** Runs `work` (the rest of the request's hooks and its handler) with `audit` as its context. */
export function withAuditContext<T>(audit: AuditContext, work: () => T): T {
  return store.run(audit, work);
}

/** Notes facts about the current request for its audit record; later notes replace earlier ones
 * field by field (a `call_tool` inner call names the tool it really called). */
export function noteAudit(notes: AuditNotes): void {
  const audit = store.getStore();
  if (audit === undefined || audit.finished) return;
  Object.assign(audit.notes, notes);
}

/** Notes a denial; the first reason stands (a later generic refusal does not hide the first). */
export function noteDenial(reason: DenialReason): void {
  const audit = store.getStore();
  if (audit === undefined || audit.finished || audit.notes.denial !== undefined) return;
  audit.notes.denial = reason;
}

/** The trace id of the request's span when tracing is on (sampled or not: the id is what a trace
 * backend or a downstream log would show). */
export function currentTraceId(): string | undefined {
  if (!telemetryStarted()) return undefined;
  const spanContext = trace.getActiveSpan()?.spanContext();
  return spanContext !== undefined && isSpanContextValid(spanContext) ? spanContext.traceId : undefined;
}

const streamed = new WeakSet<object>();

/** Marks a response that became an event stream (SSE), by its raw Node response. */
export function markStreamed(response: object): void {
  streamed.add(response);
}

export function wasStreamed(response: object): boolean {
  return streamed.has(response);
}

/** Notes the item a request points at and its source. A source of the workspace the key may not
 * see is a denial (`not_visible`) for the auditor, while the caller hears "unknown" (no oracle). */
export function noteTarget(
  kind: TargetKind,
  source: { readonly name: string } | undefined,
  visible: boolean,
  names: { name?: string | undefined; requested?: string | undefined } = {},
): void {
  noteAudit({ source: source?.name, target: { kind, ...names } });
  if (source !== undefined && !visible) noteDenial('not_visible');
}
