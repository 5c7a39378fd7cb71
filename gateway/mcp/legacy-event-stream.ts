// GET /mcp for 2025-era clients (issue 24): the stream a legacy client opens after `initialize`, on
// which the gateway sends the key's resource updates (resources/subscribe, key-scoped; see
// docs/decisions.md) and list changes of the sources the key may see. Bounded like a listen stream
// (per-key and per-workspace caps, idle timeout, lifetime, slow clients dropped). A graceful end just
// ends the response; the SDK clients open it again. Modern clients get 405, as the 2026 spec says.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { requirePrincipal } from '../edge/request-context.js';
import type { ChangeEvent, SubscriptionHub } from '../subscriptions/index.js';
import { errorMessage } from './jsonrpc.js';
import { LEGACY_VERSIONS } from '../protocol/index.js';
import { SseSink } from './sse-sink.js';
import { streamCapReached } from './subscriptions-listen.js';
import { clientUriFor } from './subscription-uris.js';

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** A GET that asks for an event stream in a 2025 revision (or with no version header: 2025-03-26). */
export function wantsLegacyStream(request: FastifyRequest): boolean {
  if (request.method !== 'GET') return false;
  const accept = header(request, 'accept') ?? '';
  const version = header(request, 'mcp-protocol-version');
  return accept.includes('text/event-stream') && (version === undefined || LEGACY_VERSIONS.includes(version));
}

export function openLegacyStream(
  hub: SubscriptionHub,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  const principal = requirePrincipal(request.principal);
  const format = (event: ChangeEvent, stream: { principal: typeof principal }) => {
    if (event.t === 'list') return { jsonrpc: '2.0', method: `notifications/${event.kind}/list_changed` };
    if (event.t !== 'updated' || !hub.legacyHas(stream.principal, event.source, event.uri)) return undefined;
    const uri = clientUriFor(stream.principal, { source: event.source, uri: event.uri });
    if (uri === undefined) return undefined;
    return { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri } };
  };
  const sink = new SseSink(reply);
  const opened = hub.open(principal, 'legacy', { sink, format });
  if (!('deliver' in opened)) {
    const error = streamCapReached(opened);
    for (const [name, value] of Object.entries(error.headers)) void reply.header(name, value);
    return reply.code(error.httpStatus).type('application/json').send(errorMessage(null, error));
  }
  sink.comment();
  return reply;
}
