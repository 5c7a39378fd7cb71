// The audit trail's HTTP side (issue 29, docs/audit.md): every request to a protected route gets an
// audit context when it arrives (handlers note into it, telemetry/audit-context.ts) and exactly one
// record when its response ends — on `onResponse`, or when the connection closes first (a client
// gone mid-stream; an SSE answer ends through the same `onResponse` as a JSON one). Every route is
// audited, public ones (the console, the RFC 9728 metadata) included, but the health probes, which
// declare `audit: 'skip'` (issue 37.10). The record is built in one place (audit-record.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { buildAuditRecord, type AuditInput } from '../telemetry/audit-record.js';
import {
  currentTraceId,
  newAuditContext,
  wasStreamed,
  withAuditContext,
  type AuditContext,
  type AuditNotes,
} from '../telemetry/audit-context.js';
import type { AuditSink } from '../telemetry/audit-sink.js';
import { methodLabel } from '../platform/http-method.js';
import { isAudited, isMcpFace } from './route-policy.js';
import { strictUtf8 } from '../platform/strict-utf8.js';
import { clientRequestIdOf } from './request-id.js';
import { routeOf } from '../platform/matched-route.js';

const contexts = new WeakMap<FastifyRequest, AuditContext>();

/** What an /mcp request was, when no handler said (refused before the dispatcher: 401, 429, a body
 * the ladder rejects): from the HTTP method and, for a POST, the body's `method` and item name. */
function peekMcp(request: FastifyRequest): AuditNotes {
  if (request.method === 'GET') return { method: 'mcp.stream' };
  if (request.method === 'DELETE') return { method: 'mcp.delete' };
  const body = Buffer.isBuffer(request.body) ? strictUtf8(request.body) : undefined;
  if (body === undefined) return { method: Buffer.isBuffer(request.body) ? 'other' : 'unknown' };
  try {
    const message = JSON.parse(body) as { method?: unknown; params?: { name?: unknown } } | null;
    const method = message?.method;
    if (typeof method !== 'string')
      return {
        method:
          message !== null && typeof message === 'object' && 'result' in message ? 'mcp.response' : 'other',
      };
    const name = message?.params?.name;
    const kind = method === 'tools/call' ? 'tool' : method === 'prompts/get' ? 'prompt' : undefined;
    return {
      method: method.startsWith('notifications/') ? 'mcp.notification' : method,
      ...(kind !== undefined && typeof name === 'string' ? { target: { kind, requested: name } } : {}),
    };
  } catch {
    return { method: 'other' };
  }
}

function inputOf(
  request: FastifyRequest,
  reply: FastifyReply,
  audit: AuditContext,
  clientGone: boolean,
): AuditInput {
  const mcp = isMcpFace(request);
  const notes =
    mcp && audit.notes.method === undefined ? { ...peekMcp(request), ...audit.notes } : audit.notes;
  const principal = request.principal;
  const raw = reply.raw;
  const consent = notes.consentRequired === true && request.errorClass === undefined;
  const toolError = !consent && notes.toolError === true && request.errorClass === undefined;
  return {
    startedAt: audit.startedAt,
    requestId: request.id,
    clientRequestId: clientRequestIdOf(request.raw),
    traceId: audit.traceId,
    face: mcp ? 'mcp' : 'rest',
    method: mcp
      ? (notes.method ?? 'other')
      : `${methodLabel(request.method)} ${routeOf(request).url ?? 'unmatched'}`,
    era: notes.era,
    workspace: principal?.workspace.name,
    principal,
    source: notes.source,
    target: notes.target,
    relayedBy: notes.relayedBy,
    denial: notes.denial,
    policy: notes.policy,
    errorClass: consent ? 'upstream_authorization' : toolError ? 'tool_execution' : request.errorClass,
    errorCode: consent ? 'upstream_consent_required' : request.errorCode,
    status: clientGone && !raw.headersSent ? 0 : raw.statusCode,
    streamed: notes.streamed === true || wasStreamed(raw),
    clientGone,
    durationMs: performance.now() - audit.startedPerf,
  };
}

/** Registers the audit hooks; without a sink (audit off) nothing is registered. Call it right after
 * the server spans, before the auth gate, so every later hook and the handler can note. */
export function registerAuditHooks(app: FastifyInstance, sink: AuditSink | undefined): void {
  if (sink === undefined) return;
  const finish = (request: FastifyRequest, reply: FastifyReply, clientGone: boolean) => {
    const audit = contexts.get(request);
    if (audit === undefined || audit.finished) return;
    audit.finished = true;
    try {
      sink.write(buildAuditRecord(inputOf(request, reply, audit, clientGone)));
    } catch (error) {
      request.log.error({ errName: error instanceof Error ? error.name : 'unknown' }, 'audit record failed');
    }
  };
  app.addHook('onRequest', (request, reply, done) => {
    if (!isAudited(request)) {
      done();
      return;
    }
    const audit = newAuditContext(currentTraceId());
    contexts.set(request, audit);
    // A response that closes without finishing never reaches onResponse; give onResponse its turn.
    reply.raw.once('close', () => {
      if (!audit.finished) setImmediate(() => finish(request, reply, !reply.raw.writableFinished));
    });
    withAuditContext(audit, done);
  });
  // Body parsing runs in the socket's context: enter the request's again for what follows.
  app.addHook('preValidation', (request, _reply, done) => {
    const audit = contexts.get(request);
    if (audit === undefined) done();
    else withAuditContext(audit, done);
  });
  app.addHook('onResponse', (request, reply, done) => {
    finish(request, reply, false);
    done();
  });
}
