// The legacy face's `resources/subscribe` and `resources/unsubscribe` (issue 24; 2025-06-18 and
// 2025-11-25). The face is stateless, so a subscription belongs to the key: its updates arrive on
// every GET /mcp stream that key holds open, on any replica (docs/decisions.md, legacy-event-stream.ts).
// A URI the key cannot see answers exactly like an unknown one, as resources/read does.
import { canSeeSource } from '../auth/index.js';
import { catalogueEntry } from '../errors/index.js';
import type { SubscriptionHub } from '../subscriptions/index.js';
import { McpError } from './jsonrpc.js';
import { noteTarget } from '../telemetry/audit-context.js';
import type { McpHandler, McpRequest } from './mcp-request.js';
import { RPC } from '../protocol/index.js';
import { parseNamespacedUri } from './resource-uri.js';
import {
  MAX_SUBSCRIPTION_URI_LENGTH,
  resolveSubscriptionUri,
  type SubscriptionTarget,
} from './subscription-uris.js';
import type { FanOutDeps } from './source-fanout.js';
import { upstreamFailure } from './upstream-failure.js';

async function target(
  deps: FanOutDeps,
  request: McpRequest,
): Promise<{ uri: string; target: SubscriptionTarget }> {
  const uri = request.params['uri'];
  if (typeof uri !== 'string' || uri === '' || uri.length > MAX_SUBSCRIPTION_URI_LENGTH)
    throw new McpError(
      200,
      RPC.invalidParams,
      `Invalid params: uri must be a string of 1 to ${MAX_SUBSCRIPTION_URI_LENGTH} characters.`,
    );
  const resolved = await resolveSubscriptionUri(deps, request.principal, uri);
  if (resolved === undefined) {
    // A namespaced URI of a source the key cannot see is told to the auditor, not the caller.
    const principal = request.principal;
    const named = parseNamespacedUri(uri)?.source;
    const source = principal.workspace.mcpSources.find((candidate) => candidate.name === named);
    noteTarget('resource', source, source === undefined || canSeeSource(principal, source.name));
    throw new McpError(200, RPC.invalidParams, `Resource not found: ${uri}`);
  }
  noteTarget('resource', { name: resolved.source }, true);
  return { uri, target: resolved };
}

export function resourcesSubscribe(hub: SubscriptionHub, deps: FanOutDeps): McpHandler {
  return async (request) => {
    const { uri, target: resolved } = await target(deps, request);
    const { principal } = request;
    const limit = hub.limits().maxUrisPerStream;
    if (hub.legacyHas(principal, resolved.source, resolved.uri)) return {};
    if (hub.legacyCount(principal) >= limit)
      throw new McpError(
        200,
        catalogueEntry('invalid_request').jsonRpcCode,
        `This key already subscribes to ${limit} resources; unsubscribe from one first.`,
        { code: 'invalid_request', class: 'request', limit: { maxUrisPerStream: limit } },
        'request',
      );
    let supported: boolean;
    try {
      supported = await hub.watches.supports(principal.workspace.name, resolved.source);
    } catch (error) {
      throw upstreamFailure(error, resolved.source);
    }
    if (!supported)
      throw new McpError(200, RPC.invalidParams, `Resource subscriptions are not offered for ${uri}.`);
    hub.legacyChange(principal, 'add', resolved.source, resolved.uri);
    return {};
  };
}

export function resourcesUnsubscribe(hub: SubscriptionHub, deps: FanOutDeps): McpHandler {
  return async (request) => {
    const { target: resolved } = await target(deps, request);
    hub.legacyChange(request.principal, 'remove', resolved.source, resolved.uri);
    return {};
  };
}
