// prompts/list and prompts/get over the workspace's sources, named `<source>__<prompt>` like tools.
// Visibility follows the key's source patterns; an invisible prompt answers like a missing one.
import { withDeadline } from '../platform/deadline.js';
import { canSeeSource } from '../auth/index.js';
import { NAMESPACE_SEPARATOR, nameProblem } from '../discovery/index.js';
import { withSessionRecovery } from '../upstream/index.js';
import { McpError } from './jsonrpc.js';
import type { McpHandler } from './mcp-request.js';
import { META, RPC } from './protocol.js';
import { fanOut, type FanOutDeps } from './source-fanout.js';
import { upstreamFailure } from './upstream-failure.js';

export function promptsList(deps: FanOutDeps): McpHandler {
  return async (request) => {
    const { items, unavailable } = await fanOut(deps, request.principal, 'prompts', (connection, signal) =>
      connection.listPrompts(signal),
    );
    // Prompt names follow the tool-name policy too; a prompt outside it is left out of the list.
    const seen = new Set<string>();
    const prompts = items
      .filter(({ source, item }) => {
        const full = `${source}${NAMESPACE_SEPARATOR}${String(item['name'])}`;
        if (nameProblem(item['name']) !== undefined || seen.has(full)) return false;
        seen.add(full);
        return true;
      })
      .map(({ source, item }) => ({
        ...item,
        name: `${source}${NAMESPACE_SEPARATOR}${String(item['name'])}`,
      }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return {
      prompts,
      ttlMs: 0,
      cacheScope: 'private',
      ...(unavailable.length > 0 ? { _meta: { [META.unavailableSources]: unavailable } } : {}),
    };
  };
}

function promptArguments(value: unknown): Record<string, string> | undefined {
  if (value === undefined) return undefined;
  if (
    typeof value !== 'object' ||
    value === null ||
    Array.isArray(value) ||
    !Object.values(value).every((v) => typeof v === 'string')
  ) {
    throw new McpError(
      200,
      RPC.invalidParams,
      'Invalid params: prompt arguments must be an object of strings.',
    );
  }
  return value as Record<string, string>;
}

export function promptsGet(deps: FanOutDeps): McpHandler {
  return async (request) => {
    const name = request.params['name'];
    if (typeof name !== 'string')
      throw new McpError(200, RPC.invalidParams, 'Invalid params: name must be a string.');
    const args = promptArguments(request.params['arguments']);
    const separator = name.indexOf(NAMESPACE_SEPARATOR);
    const principal = request.principal;
    const source =
      separator <= 0
        ? undefined
        : principal.workspace.mcpSources.find((s) => s.name === name.slice(0, separator));
    if (source === undefined || !canSeeSource(principal, source.name))
      throw new McpError(200, RPC.invalidParams, `Unknown prompt: ${name}`);
    const upstreamName = name.slice(separator + NAMESPACE_SEPARATOR.length);
    const workspace = principal.workspace.name;
    try {
      return await deps.breakers.run(workspace, source, () =>
        withSessionRecovery(deps.pool, workspace, source, (connection) =>
          withDeadline(request.signal, source.timeouts.callMs, (signal) =>
            connection.getPrompt(upstreamName, args, { signal, timeoutMs: source.timeouts.callMs }),
          ),
        ),
      );
    } catch (error) {
      throw upstreamFailure(error, source.name);
    }
  };
}
