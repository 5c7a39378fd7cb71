// prompts/list and prompts/get over the workspace's sources, named like tools by each source's prefix
// policy (item-names.ts): `<source>__<prompt>`, or the upstream's own name.
// Visibility follows the key's source patterns; an invisible prompt answers like a missing one,
// before any guardrail hook (item-guardrails.ts) is asked.
import { upstreamTraceMeta } from '../telemetry/tracing.js';
import { withDeadline } from '../platform/deadline.js';
import { canSeeSource } from '../auth/index.js';
import { nameProblem } from '../discovery/index.js';
import { exposePrompts, promptName, resolvePromptName } from './item-names.js';
import { withSessionRecovery } from '../upstream/index.js';
import { withConnection } from './connection-consent.js';
import { McpError } from './jsonrpc.js';
import { noteTarget } from '../telemetry/audit-context.js';
import type { McpHandler } from './mcp-request.js';
import { META, RPC } from '../protocol/index.js';
import type { GuardrailHooks } from '../governance/index.js';
import { guardedPrompt } from './item-guardrails.js';
import { fanOut, type FanOutDeps } from './source-fanout.js';
import { upstreamFailure } from './upstream-failure.js';

export function promptsList(deps: FanOutDeps): McpHandler {
  return async (request) => {
    const { items, unavailable } = await fanOut(deps, request.principal, 'prompts', (connection, signal) =>
      connection.listPrompts(signal),
    );
    // Prompt names follow the tool-name grammar too; a prompt outside it is left out of the list.
    const seen = new Set<string>();
    const valid = items.filter(({ source, item }) => {
      const full = promptName(source, String(item['name']));
      if (nameProblem(item['name']) !== undefined || seen.has(full)) return false;
      seen.add(full);
      return true;
    });
    const prompts = exposePrompts(request.principal, valid)
      .map(({ item, exposed }) => ({ ...item, name: exposed }))
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

export function promptsGet(deps: FanOutDeps, hooks?: GuardrailHooks): McpHandler {
  return async (request) => {
    const name = request.params['name'];
    if (typeof name !== 'string')
      throw new McpError(200, RPC.invalidParams, 'Invalid params: name must be a string.');
    const args = promptArguments(request.params['arguments']);
    const principal = request.principal;
    const target = await resolvePromptName(deps, principal, name);
    const source =
      target === undefined ? undefined : principal.workspace.mcpSources.find((s) => s.name === target.source);
    const canonical = target === undefined ? undefined : promptName(target.source, target.name);
    noteTarget('prompt', source, source !== undefined && canSeeSource(principal, source.name), {
      name: canonical,
      requested: name,
    });
    if (target === undefined || source === undefined || !canSeeSource(principal, source.name))
      throw new McpError(200, RPC.invalidParams, `Unknown prompt: ${name}`);
    const upstreamName = target.name;
    const workspace = principal.workspace.name;
    const prompt = { source, name, upstreamName, args };
    return withConnection(deps.connections, request, { source, requested: name }, () =>
      guardedPrompt(hooks, request, prompt, async (guardedArgs) => {
        try {
          return await deps.breakers.run(workspace, source, () =>
            withSessionRecovery(deps.pool, workspace, source, (connection) =>
              withDeadline(request.signal, source.timeouts.callMs, (signal) =>
                connection.getPrompt(upstreamName, guardedArgs, {
                  signal,
                  timeoutMs: source.timeouts.callMs,
                  meta: upstreamTraceMeta(request.params['_meta']),
                }),
              ),
            ),
          );
        } catch (error) {
          throw upstreamFailure(error, source.name);
        }
      }),
    );
  };
}
