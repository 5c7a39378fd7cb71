// POST /mcp (spec §4.2), and the same endpoint at /w/<workspace>/mcp (a workspace's own protected
// resource, D24: the auth gate admits only that workspace's credentials there): runs the inbound
// ladder on the raw body, then dispatches with the principal the auth gate resolved. Responses are JSON; a client that disconnects aborts the upstream call, and
// a call still running when the shutdown grace runs out is aborted and answered `not_ready` (as the
// last event of its stream, never a cut one) before the gateway closes its connections (issue 21).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requirePrincipal } from '../edge/request-context.js';
import type { Dispatch } from './dispatcher.js';
import { inboundHttpOf } from './inbound-http.js';
import { runLadder, type Era, type InboundMessage, type LadderOutcome } from './inbound-ladder.js';
import { errorMessage, McpError, resultMessage, type JsonRpcId } from './jsonrpc.js';
import { RPC } from '../protocol/index.js';
import { ResponseChannel } from './response-channel.js';
import type { ClientAnswer } from './bridge-forwarder.js';
import { unmatchedResponse } from './streamed-input-bridge.js';
import { annotateRequest } from '../telemetry/tracing.js';
import { inMcpServerSpan } from '../telemetry/mcp-server-span.js';
import { noteAudit } from '../telemetry/audit-context.js';
import { catalogueEntry, ERROR_CATALOGUE } from '../errors/index.js';
import { WORKSPACE_MCP_ROUTE } from '../auth/index.js';

function sendError(reply: FastifyReply, id: JsonRpcId | null, error: McpError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) void reply.header(name, value);
  return reply.code(error.httpStatus).type('application/json').send(errorMessage(id, error));
}

/** The catalogue code an error carries, else its JSON-RPC code: a closed set, never content (a
 * relayed upstream error's own data is the upstream's words and stays out of the log). */
function errorCodeOf(error: McpError): string {
  const code = error.data?.['code'];
  return typeof code === 'string' && Object.hasOwn(ERROR_CATALOGUE, code) ? code : String(error.rpcCode);
}

function abortOnDisconnect(request: FastifyRequest, reply: FastifyReply): AbortController {
  const controller = new AbortController();
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) controller.abort(new Error('client disconnected'));
  });
  request.raw.on('aborted', () => controller.abort(new Error('client disconnected')));
  return controller;
}

function shuttingDown(): McpError {
  const entry = catalogueEntry('not_ready');
  return new McpError(
    entry.status,
    entry.jsonRpcCode,
    'The gateway is shutting down; send the call again.',
    { code: 'not_ready', class: entry.errorClass },
    entry.errorClass,
  );
}

/** The call's outcome, or `not_ready` once the shutdown cutoff passes (the call is aborted then). */
function beforeCutoff<T>(
  call: (signal: AbortSignal) => Promise<T>,
  controller: AbortController,
  cutoff: AbortSignal | undefined,
): Promise<T> {
  if (cutoff === undefined) return call(controller.signal);
  return new Promise<T>((resolve, reject) => {
    const onCutoff = () => {
      reject(shuttingDown());
      controller.abort(new Error('gateway shutting down'));
    };
    if (cutoff.aborted) return onCutoff();
    cutoff.addEventListener('abort', onCutoff, { once: true });
    void call(controller.signal)
      .then(resolve, reject)
      .finally(() => cutoff.removeEventListener('abort', onCutoff));
  });
}

/** Takes a client's JSON-RPC response (issue 24): undefined when accepted, else the refusal. */
export type AnswerSink = (answer: ClientAnswer) => Promise<McpError | undefined>;

/** Whose answer a response is: workspace and key id, both checked against the question's seal. */
function callerOf(request: FastifyRequest): { workspace: string; keyId: string } {
  const principal = requirePrincipal(request.principal);
  return { workspace: principal.workspace.name, keyId: principal.keyId };
}

/** What the audit record names this request by (issue 29). */
function auditedMethod(outcome: Exclude<LadderOutcome, { kind: 'reject' }>) {
  if (outcome.kind === 'request') return { method: outcome.message.method, era: outcome.era };
  return { method: `mcp.${outcome.kind}`, era: outcome.era };
}

export function registerMcpRoute(
  app: FastifyInstance,
  dispatch: Dispatch,
  cutoff?: AbortSignal,
  answers?: AnswerSink,
): void {
  void app.register((instance, _options, done) => {
    instance.removeAllContentTypeParsers();
    // Bytes, not a string: the ladder decodes strictly so invalid UTF-8 is refused, not replaced.
    instance.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, parsed) => parsed(null, body));
    for (const url of ['/mcp', WORKSPACE_MCP_ROUTE])
      instance.route({
        method: ['GET', 'POST', 'DELETE', 'PUT', 'PATCH'],
        url,
        config: { face: 'mcp' },
        handler,
      });
    done();
    async function handler(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
      const outcome = runLadder(inboundHttpOf(request));
      if (outcome.kind === 'reject') {
        request.errorClass = outcome.error.errorClass;
        request.errorCode = errorCodeOf(outcome.error);
        annotateRequest({
          'error.type': outcome.error.errorClass,
          'rpc.response.status_code': String(outcome.error.rpcCode),
        });
        return sendError(reply, outcome.id, outcome.error);
      }
      noteAudit(auditedMethod(outcome));
      if (outcome.kind === 'notification') return reply.code(202).send();
      if (outcome.kind === 'response') {
        // Only the legacy face asks clients anything; a response matching nothing is refused alike.
        const refusal =
          outcome.era === 'legacy' && answers !== undefined
            ? await answers({ ...callerOf(request), ...outcome.response })
            : unmatchedResponse();
        return refusal === undefined ? reply.code(202).send() : sendError(reply, null, refusal);
      }
      const { message } = outcome;
      annotateRequest({
        'mcp.method.name': message.method,
        'jsonrpc.request.id': String(message.id),
        'mcp.protocol.version': outcome.version,
        'agw.mcp.era': outcome.era,
      });
      const channel = new ResponseChannel(reply);
      // Trace context in `_meta` continues the MCP request (its dispatch and answer) in the client's
      // trace; the HTTP span keeps the header's (mcp-server-span.ts, docs/decisions.md).
      return inMcpServerSpan(
        message.params['_meta'],
        {
          method: message.method,
          id: message.id,
          version: outcome.version,
          era: outcome.era,
        },
        () => answer(request, reply, channel, message, outcome.era, outcome.version),
      );
    }

    async function answer(
      request: FastifyRequest,
      reply: FastifyReply,
      channel: ResponseChannel,
      message: InboundMessage & { id: JsonRpcId },
      era: Era,
      version: string,
    ): Promise<FastifyReply> {
      try {
        const principal = requirePrincipal(request.principal);
        const result = await beforeCutoff(
          (signal) =>
            dispatch({
              principal,
              era,
              version,
              id: message.id,
              method: message.method,
              params: message.params,
              headers: request.headers,
              signal,
              notify: (notification) => channel.notify(notification),
            }),
          abortOnDisconnect(request, reply),
          cutoff,
        );
        noteAudit({ toolError: (result as { isError?: unknown } | undefined)?.isError === true });
        return channel.finish(200, resultMessage(message.id, result));
      } catch (error) {
        if (error instanceof McpError) {
          request.errorClass = error.errorClass;
          request.errorCode = errorCodeOf(error);
          annotateRequest({
            'error.type': error.errorClass,
            'rpc.response.status_code': String(error.rpcCode),
          });
          // Once streaming, the HTTP status is sent already; the error travels as the last event.
          return channel.finish(error.httpStatus, errorMessage(message.id, error), error.headers);
        }
        request.log.error(
          { errName: error instanceof Error ? error.name : 'unknown', method: message.method },
          'mcp handler failed',
        );
        return channel.finish(
          500,
          errorMessage(
            message.id,
            new McpError(500, RPC.internalError, 'Internal error.', undefined, 'internal'),
          ),
        );
      }
    }
  });
}
