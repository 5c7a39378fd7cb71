// resources/list, resources/read and resources/templates/list over the workspace's sources, with
// URIs and templates named by each source's prefix policy (item-names.ts, resource-uri.ts). Visibility follows the key's source
// patterns; a resource of a source the key cannot see answers exactly like a missing one, before
// any guardrail hook (item-guardrails.ts) is asked.
import { upstreamTraceMeta } from '../telemetry/tracing.js';
import { withDeadline } from '../platform/deadline.js';
import { canSeeSource } from '../auth/index.js';
import { withSessionRecovery } from '../upstream/index.js';
import { withConnection } from './connection-consent.js';
import { McpError } from './jsonrpc.js';
import { noteTarget } from '../telemetry/audit-context.js';
import type { McpHandler } from './mcp-request.js';
import { META, RPC } from '../protocol/index.js';
import {
  clientUri,
  exposedItemName,
  exposeResources,
  exposeTemplates,
  linkClaims,
  resolveResourceUri,
} from './item-names.js';
import type { GuardrailHooks } from '../governance/index.js';
import { guardedRead } from './item-guardrails.js';
import { fanOut, type FanOutDeps } from './source-fanout.js';
import { upstreamFailure } from './upstream-failure.js';

function resourceNotFound(uri: string): McpError {
  return new McpError(200, RPC.invalidParams, `Resource not found: ${uri}`);
}

export function resourcesList(deps: FanOutDeps): McpHandler {
  return async (request) => {
    const { items, unavailable } = await fanOut(deps, request.principal, 'resources', (connection, signal) =>
      connection.listResources(signal),
    );
    const links = await linkClaims(deps, request.principal);
    const resources = exposeResources(request.principal, items, links)
      .map(({ source, item, exposed }) => ({
        ...item,
        uri: exposed,
        name: exposedItemName(source, item, exposed),
      }))
      .sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
    return {
      resources,
      ttlMs: 0,
      cacheScope: 'private',
      ...(unavailable.length > 0 ? { _meta: { [META.unavailableSources]: unavailable } } : {}),
    };
  };
}

export function resourceTemplatesList(deps: FanOutDeps): McpHandler {
  return async (request) => {
    const { items, unavailable } = await fanOut(
      deps,
      request.principal,
      'resourceTemplates',
      (connection, signal) => connection.listResourceTemplates(signal),
    );
    const resourceTemplates = exposeTemplates(
      request.principal,
      items.filter(({ item }) => typeof item['uriTemplate'] === 'string'),
    )
      .map(({ source, item, exposed }) => ({
        ...item,
        uriTemplate: exposed,
        name: exposedItemName(source, item, exposed),
      }))
      .sort((a, b) => (a.uriTemplate < b.uriTemplate ? -1 : a.uriTemplate > b.uriTemplate ? 1 : 0));
    return {
      resourceTemplates,
      ttlMs: 0,
      cacheScope: 'private',
      ...(unavailable.length > 0 ? { _meta: { [META.unavailableSources]: unavailable } } : {}),
    };
  };
}

export function resourcesRead(deps: FanOutDeps, hooks?: GuardrailHooks): McpHandler {
  return async (request) => {
    const requested = request.params['uri'];
    if (typeof requested !== 'string')
      throw new McpError(200, RPC.invalidParams, 'Invalid params: uri must be a string.');
    const principal = request.principal;
    const resolved = await resolveResourceUri(deps, principal, requested);
    const source =
      resolved === undefined
        ? undefined
        : principal.workspace.mcpSources.find((s) => s.name === resolved.source);
    noteTarget('resource', source, source !== undefined && canSeeSource(principal, source.name));
    if (resolved === undefined || source === undefined || !canSeeSource(principal, source.name))
      throw resourceNotFound(requested);
    const workspace = principal.workspace.name;
    const read = { source, requested, resolved };
    return withConnection(deps.connections, request, { source, requested }, async () => {
      const guarded = await guardedRead(hooks, deps, request, read, async ({ requested, resolved }) => {
        try {
          const result = await deps.breakers.run(workspace, source, () =>
            withSessionRecovery(deps.pool, workspace, source, (connection) =>
              withDeadline(request.signal, source.timeouts.callMs, (signal) =>
                connection.readResource(resolved.uri, {
                  signal,
                  timeoutMs: source.timeouts.callMs,
                  meta: upstreamTraceMeta(request.params['_meta']),
                }),
              ),
            ),
          );
          const contents = Array.isArray(result['contents'])
            ? (result['contents'] as Record<string, unknown>[])
            : [];
          // The URI asked for comes back as the client wrote it; others by the source's policy.
          const back = (uri: string) => clientUri(source, uri, { requested, resolved });
          return {
            ...result,
            contents: contents.map((content) =>
              typeof content['uri'] === 'string' ? { ...content, uri: back(content['uri']) } : content,
            ),
          };
        } catch (error) {
          throw upstreamFailure(error, source.name);
        }
      });
      return { ...guarded, ttlMs: 0, cacheScope: 'private' };
    });
  };
}
