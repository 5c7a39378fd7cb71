// The resolve and permit steps of tools/call (spec §4.2 rules 1–5, §5.5): the called name to its
// source and tool, and whether this key may call it, all decided before any upstream contact. A tool
// the key cannot see answers exactly like an unknown tool; why it was refused is told to the auditor.
import { canSeeSource, canSeeTool, hasAccess, type Principal } from '../auth/index.js';
import type { McpSourceConfig } from '../config/index.js';
import {
  isVisible,
  NAMESPACE_SEPARATOR,
  namespacedToolName,
  resolveToolName,
  type CatalogTool,
  type ToolCatalog,
  type UnapprovedTool,
} from '../discovery/index.js';
import { catalogueEntry } from '../errors/index.js';
import { RPC } from '../protocol/index.js';
import { noteAudit, noteDenial } from '../telemetry/audit-context.js';
import { McpError } from './jsonrpc.js';
import type { McpRequest } from './mcp-request.js';
import { annotatedParams, paramHeaderMismatch } from './param-headers.js';
import { catalogueFailure } from './upstream-failure.js';

export function unknownTool(name: string): McpError {
  return new McpError(200, RPC.invalidParams, `Unknown tool: ${name}`);
}

/** A permission denial on /mcp (D18, issue 8.11): an in-band JSON-RPC error with a plain message,
 * not HTTP 403 with an OAuth `insufficient_scope` challenge, which MCP clients take as a cue to
 * start an OAuth step-up (mcp-remote then tries Dynamic Client Registration). The one exception is
 * an OAuth caller that more scopes would make a writer (issue 29): for it a step-up is the answer. */
export function needsWrite(tool: string, principal?: Principal): McpError {
  const entry = catalogueEntry('forbidden');
  const stepUp = principal?.oidc?.stepUp;
  if (stepUp !== undefined)
    return new McpError(
      403,
      entry.jsonRpcCode,
      `Permission denied: ${tool} needs write access; sign in again with the scope ${stepUp.scopes.join(' ')}.`,
      {
        code: 'insufficient_scope',
        class: entry.errorClass,
        requiredPermission: 'write',
        grantedPermission: 'read',
      },
      entry.errorClass,
      { 'www-authenticate': stepUp.challenge },
    );
  return new McpError(
    200,
    entry.jsonRpcCode,
    `Permission denied: ${tool} needs an API key with write access; this key has read access.`,
    { code: 'forbidden', class: entry.errorClass, requiredPermission: 'write', grantedPermission: 'read' },
    entry.errorClass,
  );
}

/** A tool pinning holds (issue 41): told only to a caller who may see the tool, after visibility, so
 * it reveals nothing an unknown-tool answer would not. */
export function toolHeld(name: string, held: UnapprovedTool): McpError {
  const entry = catalogueEntry('forbidden');
  const why =
    held.change === 'new'
      ? 'its definition has not been approved yet'
      : 'its definition changed since an admin approved it';
  return new McpError(
    200,
    entry.jsonRpcCode,
    `Tool held: ${name} is not served because ${why}; an admin must review and approve it.`,
    { code: 'forbidden', class: entry.errorClass, reason: 'tool_not_approved', change: held.change },
    entry.errorClass,
  );
}

/** The held tool a call names, if the key may see it. */
function heldFor(
  catalog: ToolCatalog,
  principal: Principal,
  source: McpSourceConfig,
  upstreamName: string,
): UnapprovedTool | undefined {
  const held = catalog.pins.held(principal.workspace.name, source.name, upstreamName);
  if (
    held === undefined ||
    !canSeeTool(principal, source.name, namespacedToolName(source.name, upstreamName))
  )
    return undefined;
  noteDenial('tool_not_approved');
  return held;
}

/** Where a called name points: a source the key may see and the tool's canonical name there. */
export interface CallTarget {
  readonly source: McpSourceConfig;
  readonly canonical: string;
}

/** Resolve: only the named tool's own source is consulted (or, for a bare name, the key's
 * unprefixed sources), so a slow or broken source never delays calls to the others' prefixed tools. */
export async function resolveCall(
  catalog: ToolCatalog,
  principal: Principal,
  name: string,
): Promise<CallTarget> {
  let target = await resolveToolName(catalog, principal, name);
  if (target.canonical === undefined && target.reused)
    target = await resolveToolName(catalog, principal, name, { fresh: true });
  const sourceName = target.source ?? '';
  const canonical = target.canonical;
  const source = principal.workspace.mcpSources.find((candidate) => candidate.name === sourceName);
  noteAudit({ source: source?.name, target: { kind: 'tool', name: canonical, requested: name } });
  if (canonical === undefined || source === undefined || !canSeeSource(principal, sourceName)) {
    // A bare name whose one candidate source could not be listed: say why, as in permitCall.
    const only = target.failed.length === 1 ? target.failed[0] : undefined;
    const failure = only === undefined ? undefined : catalog.status(principal.workspace.name, only).error;
    if (only !== undefined && failure !== undefined) throw catalogueFailure(failure.code, only);
    // A bare name of a tool that pinning holds on one of the key's unprefixed sources.
    for (const candidate of principal.workspace.mcpSources) {
      if (
        canonical !== undefined ||
        candidate.prefix === 'always' ||
        !canSeeSource(principal, candidate.name)
      )
        continue;
      const held = heldFor(catalog, principal, candidate, name);
      if (held !== undefined) throw toolHeld(name, held);
    }
    if (target.hiddenIn !== undefined) noteAudit({ source: target.hiddenIn });
    // Told to the auditor, never the caller.
    if (source !== undefined || target.hiddenIn !== undefined) noteDenial('not_visible');
    throw unknownTool(name);
  }
  return { source, canonical };
}

/** Permit: the tool on its source's list, visible to the key and covered by its access level. */
export async function permitCall(
  catalog: ToolCatalog,
  principal: Principal,
  name: string,
  { source, canonical }: CallTarget,
): Promise<CatalogTool> {
  const workspace = principal.workspace.name;
  const find = (tools: readonly CatalogTool[]) => {
    const found = tools.find((candidate) => candidate.name === canonical);
    return found !== undefined && isVisible(principal, found) ? found : undefined;
  };
  const decided = await catalog.callTools(workspace, source);
  let tool = find(decided.tools);
  // A list reused within the source's floor decides only what it allows: anything it would refuse
  // (unknown tool, missing permission) is decided again on a fresh list.
  if (decided.reused && (tool === undefined || !hasAccess(principal, tool.permission)))
    tool = find((await catalog.callTools(workspace, source, { fresh: true })).tools);
  if (tool === undefined) {
    // The key may see this source but its tools could not be listed: say why (an open breaker, a
    // source that is down) rather than claim the tool does not exist.
    const failure = catalog.status(workspace, source.name).error;
    if (failure !== undefined) throw catalogueFailure(failure.code, source.name);
    const held = heldFor(
      catalog,
      principal,
      source,
      canonical.slice(source.name.length + NAMESPACE_SEPARATOR.length),
    );
    if (held !== undefined) throw toolHeld(name, held);
    if (decided.tools.some((listed) => listed.name === canonical)) noteDenial('not_visible');
    throw unknownTool(name);
  }
  if (!hasAccess(principal, tool.permission)) {
    noteDenial('write_required');
    throw needsWrite(name, principal);
  }
  return tool;
}

/** The `Mcp-Param-*` headers of a permitted call mirror its arguments: required on a modern client's
 * own call, checked when present on a legacy call or one relayed by call_tool. */
export function checkParamHeaders(
  request: McpRequest,
  tool: CatalogTool,
  args: Record<string, unknown> | undefined,
): void {
  const mismatch = paramHeaderMismatch(
    annotatedParams(tool.inputSchema),
    args ?? {},
    request.headers,
    request.era === 'modern' && request.relayedBy === undefined ? 'required' : 'if-present',
  );
  if (mismatch !== undefined) {
    throw new McpError(400, RPC.headerMismatch, `Header mismatch: ${mismatch} must mirror its argument.`, {
      mismatch: { header: mismatch },
    });
  }
}
