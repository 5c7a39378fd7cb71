// completion/complete (issue 24), routed to the one source that owns the prompt or resource template
// (by the names item-names.ts gives them: `<source>__<prompt>`, `agw://<source>/~/<template>`, or an
// unprefixed source's own) and asked there in the upstream's own names. A ref of a source the key cannot see answers exactly like a missing one.
import { upstreamTraceMeta } from '../telemetry/tracing.js';
import { withDeadline } from '../platform/deadline.js';
import { canSeeSource, type Principal } from '../auth/index.js';
import type { McpSourceConfig } from '../config/index.js';
import { withSessionRecovery, type CompleteParams } from '../upstream/index.js';
import { McpError } from './jsonrpc.js';
import { noteTarget } from '../telemetry/audit-context.js';
import type { McpHandler } from './mcp-request.js';
import { RPC } from '../protocol/index.js';
import { resolvePromptName, resolveResourceUri } from './item-names.js';
import type { FanOutDeps } from './source-fanout.js';
import { upstreamFailure } from './upstream-failure.js';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function invalid(message: string): McpError {
  return new McpError(200, RPC.invalidParams, `Invalid params: ${message}`);
}

/** The argument and context of the request, checked; the ref is translated by `route`. */
function argumentsOf(params: Record<string, unknown>): Omit<CompleteParams, 'ref'> {
  const argument = params['argument'];
  if (!isRecord(argument) || typeof argument['name'] !== 'string' || typeof argument['value'] !== 'string')
    throw invalid('argument must have a string name and value.');
  const context = params['context'];
  if (context === undefined) return { argument: { name: argument['name'], value: argument['value'] } };
  const contextArgs = isRecord(context) ? context['arguments'] : undefined;
  if (
    !isRecord(context) ||
    (contextArgs !== undefined &&
      (!isRecord(contextArgs) || !Object.values(contextArgs).every((v) => typeof v === 'string')))
  )
    throw invalid('context.arguments must be an object of strings.');
  return {
    argument: { name: argument['name'], value: argument['value'] },
    context: contextArgs === undefined ? {} : { arguments: contextArgs as Record<string, string> },
  };
}

function visibleSource(principal: Principal, name: string | undefined): McpSourceConfig | undefined {
  const source = principal.workspace.mcpSources.find((s) => s.name === name);
  return source !== undefined && canSeeSource(principal, source.name) ? source : undefined;
}

const inWorkspace = (principal: Principal, name: string | undefined) =>
  principal.workspace.mcpSources.find((s) => s.name === name);

/** The owning source and the ref in its own names; a missing or invisible owner is refused alike. */
async function route(
  deps: FanOutDeps,
  principal: Principal,
  ref: unknown,
): Promise<{ source: McpSourceConfig; ref: CompleteParams['ref'] }> {
  if (isRecord(ref) && ref['type'] === 'ref/prompt' && typeof ref['name'] === 'string') {
    const name = ref['name'];
    const target = await resolvePromptName(deps, principal, name);
    const source = visibleSource(principal, target?.source);
    noteTarget('prompt', inWorkspace(principal, target?.source), source !== undefined, { requested: name });
    if (target === undefined || source === undefined)
      throw new McpError(200, RPC.invalidParams, `Unknown prompt: ${name}`);
    return { source, ref: { type: 'ref/prompt', name: target.name } };
  }
  if (isRecord(ref) && ref['type'] === 'ref/resource' && typeof ref['uri'] === 'string') {
    const resolved = await resolveResourceUri(deps, principal, ref['uri'], { template: true });
    const source = visibleSource(principal, resolved?.source);
    noteTarget('resource_template', inWorkspace(principal, resolved?.source), source !== undefined);
    if (resolved === undefined || source === undefined)
      throw new McpError(200, RPC.invalidParams, `Unknown resource template: ${ref['uri']}`);
    return { source, ref: { type: 'ref/resource', uri: resolved.uri } };
  }
  throw invalid('ref must be a ref/prompt with a name or a ref/resource with a uri.');
}

export function completionComplete(deps: FanOutDeps): McpHandler {
  return async (request) => {
    const rest = argumentsOf(request.params);
    const { source, ref } = await route(deps, request.principal, request.params['ref']);
    const workspace = request.principal.workspace.name;
    try {
      return await deps.breakers.run(workspace, source, () =>
        withSessionRecovery(deps.pool, workspace, source, (connection) =>
          withDeadline(request.signal, source.timeouts.callMs, (signal) =>
            connection.complete(
              { ref, ...rest },
              { signal, timeoutMs: source.timeouts.callMs, meta: upstreamTraceMeta(request.params['_meta']) },
            ),
          ),
        ),
      );
    } catch (error) {
      throw upstreamFailure(error, source.name);
    }
  };
}
