// The server span of each request (issue 12), started by the gateway itself rather than by the http
// instrumentation: that one computed a dozen attributes and bound the request and response emitters
// for every request, sampled or not, which was most of what 1 % sampling cost (~100 µs a request).
// Here an unsampled request costs a context extraction, the sampler and two context switches.
// The span is continued from the client's W3C `traceparent` header, named `<METHOD> <route>`, and carries
// the HTTP semantic-convention attributes that are not content: method, route, path (never the
// query string), scheme, protocol version, peer address, user agent and status code.
// Body parsing runs in the socket's context, not the request's, so the context is entered twice:
// in the first `onRequest` hook and again in the first `preValidation` hook, after the body.
// It starts before the body is read (auth, limits and refusals belong to it), so the trace context
// an MCP request carries in `params._meta` continues the MCP server span instead (mcp-server-span.ts).
import { methodLabel } from '../platform/http-method.js';
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  type Context,
  type Span,
} from '@opentelemetry/api';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { telemetryStarted } from './telemetry-handle.js';
import { tracer, withHttpServerSpan } from './tracing.js';
import { routeOf } from '../platform/matched-route.js';

const UNTRACED = /^\/(healthz|readyz|metrics)(\?|$)/;

interface Traced {
  readonly span: Span;
  readonly context: Context;
}

const traced = new WeakMap<FastifyRequest, Traced>();

function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}

export function registerServerSpans(app: FastifyInstance): void {
  if (!telemetryStarted()) return;
  app.addHook('onRequest', (request, _reply, done) => {
    if (UNTRACED.test(request.url)) {
      done();
      return;
    }
    const parent = propagation.extract(ROOT_CONTEXT, request.headers);
    const span = tracer.startSpan(
      `${methodLabel(request.method)} ${routeOf(request).url ?? 'unmatched'}`,
      { kind: SpanKind.SERVER },
      parent,
    );
    if (span.isRecording()) {
      const agent = request.headers['user-agent'];
      span.setAttributes({
        'http.request.method': methodLabel(request.method),
        ...(methodLabel(request.method) === '_OTHER'
          ? { 'http.request.method_original': request.method }
          : {}),
        ...(routeOf(request).url === undefined ? {} : { 'http.route': routeOf(request).url }),
        'url.path': pathOf(request.url),
        'url.scheme': request.protocol,
        'network.protocol.version': request.raw.httpVersion,
        ...(request.ip === undefined ? {} : { 'client.address': request.ip }),
        ...(typeof agent === 'string' ? { 'user_agent.original': agent.slice(0, 256) } : {}),
      });
    }
    const active = withHttpServerSpan(parent, span);
    traced.set(request, { span, context: active });
    context.with(active, done);
  });
  app.addHook('preValidation', (request, _reply, done) => {
    const entry = traced.get(request);
    if (entry === undefined) done();
    else context.with(entry.context, done);
  });
  const end = (request: FastifyRequest, status: number | undefined) => {
    const entry = traced.get(request);
    if (entry === undefined) return;
    traced.delete(request);
    if (entry.span.isRecording()) {
      if (status !== undefined) entry.span.setAttribute('http.response.status_code', status);
      if (status === undefined || status >= 500) entry.span.setStatus({ code: SpanStatusCode.ERROR });
    }
    entry.span.end();
  };
  app.addHook('onResponse', (request, reply, done) => {
    end(request, reply.statusCode);
    done();
  });
  app.addHook('onRequestAbort', (request, done) => {
    end(request, undefined);
    done();
  });
}
