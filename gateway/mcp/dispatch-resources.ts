// resources/list, resources/read and resources/templates/list over the workspace's sources, with
// URIs and templates namespaced per source (resource-uri.ts). Visibility follows the key's source
// patterns; a resource of a source the key cannot see answers exactly like a missing one.
import { withDeadline } from '../platform/deadline.js';
import { canSeeSource } from '../auth/index.js';
import { withSessionRecovery } from '../upstream/index.js';
import { McpError } from './jsonrpc.js';
import type { McpHandler } from './mcp-request.js';
import { META, RPC } from './protocol.js';
import { namespacedUri, namespacedUriTemplate, parseNamespacedUri } from './resource-uri.js';
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
    const resources = items
      .map(({ source, item }) => ({
        ...item,
        uri: namespacedUri(source, String(item['uri'])),
        name: `${source}__${String(item['name'])}`,
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
    const resourceTemplates = items
      .filter(({ item }) => typeof item['uriTemplate'] === 'string')
      .map(({ source, item }) => ({
        ...item,
        uriTemplate: namespacedUriTemplate(source, item['uriTemplate'] as string),
        name: `${source}__${String(item['name'])}`,
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

export function resourcesRead(deps: FanOutDeps): McpHandler {
  return async (request) => {
    const requested = request.params['uri'];
    if (typeof requested !== 'string')
      throw new McpError(200, RPC.invalidParams, 'Invalid params: uri must be a string.');
    const parsed = parseNamespacedUri(requested);
    const principal = request.principal;
    const source =
      parsed === undefined ? undefined : principal.workspace.mcpSources.find((s) => s.name === parsed.source);
    if (parsed === undefined || source === undefined || !canSeeSource(principal, source.name))
      throw resourceNotFound(requested);
    const workspace = principal.workspace.name;
    try {
      const result = await deps.breakers.run(workspace, source, () =>
        withSessionRecovery(deps.pool, workspace, source, (connection) =>
          withDeadline(request.signal, source.timeouts.callMs, (signal) =>
            connection.readResource(parsed.uri, { signal, timeoutMs: source.timeouts.callMs }),
          ),
        ),
      );
      const contents = Array.isArray(result['contents'])
        ? (result['contents'] as Record<string, unknown>[])
        : [];
      // A URI expanded from a template (verbatim form) comes back as the client wrote it.
      const back = (uri: string) =>
        parsed.form === 'verbatim' && uri === parsed.uri ? requested : namespacedUri(source.name, uri);
      return {
        ...result,
        contents: contents.map((content) =>
          typeof content['uri'] === 'string' ? { ...content, uri: back(content['uri']) } : content,
        ),
        ttlMs: 0,
        cacheScope: 'private',
      };
    } catch (error) {
      throw upstreamFailure(error, source.name);
    }
  };
}
