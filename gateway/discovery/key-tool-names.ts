// The names one key sees for its tools (issue 24), the same on /mcp and on REST /agent/tools:
// assigned over the tools that key can see (exposed-names.ts), so a tool another key cannot see never
// changes, hides or reveals a name for it. The gateway's own tool names are reserved
// (gateway-tool-names.ts). A call names a tool either way: `<source>__<tool>` always works; a bare
// name is looked up among the unprefixed sources only.
import { canSeeSource, type Principal } from '../auth/index.js';
import type { McpSourceConfig } from '../config/index.js';
import { anyBareNames, assignNames, type NameAssignment } from './exposed-names.js';
import { GATEWAY_TOOL_NAMES } from './gateway-tool-names.js';
import type { CatalogTool, ToolCatalog } from './tool-catalog.js';
import { NAMESPACE_SEPARATOR } from './tool-namer.js';
import { isVisible } from './visible-tools.js';

function policyOf(principal: Principal): (source: string) => McpSourceConfig['prefix'] {
  const policies = new Map(principal.workspace.mcpSources.map((s) => [s.name, s.prefix] as const));
  return (source) => policies.get(source) ?? 'always';
}

/** Exposed names for `tools`, which must be what the key can see (visible, whatever its access). */
export function toolNames(principal: Principal, tools: readonly CatalogTool[]): NameAssignment {
  const policy = policyOf(principal);
  return assignNames(
    tools.map((tool) => ({
      source: tool.source,
      policy: policy(tool.source),
      canonical: tool.name,
      bare: tool.upstreamName,
    })),
    GATEWAY_TOOL_NAMES,
  );
}

/** Each tool under its exposed name; tools that have none (collisions under `never`) are left out. */
export function exposeTools<T extends CatalogTool>(
  principal: Principal,
  visible: readonly T[],
): { tool: T; name: string }[] {
  if (!anyBareNames(principal.workspace.mcpSources))
    return visible.map((tool) => ({ tool, name: tool.name }));
  const names = toolNames(principal, visible).exposed;
  const out: { tool: T; name: string }[] = [];
  for (const tool of visible) {
    const name = names.get(tool.name);
    if (name !== undefined) out.push({ tool, name });
  }
  return out;
}

/** Where a called name points. `canonical` is unset when no tool the key can see has the name;
 * `failed` then names the unprefixed sources whose lists could not be read, `hiddenIn` the source of
 * a tool the key's patterns hide that the bare name would name (for the audit record only), and
 * `reused` says a list reused within a source's call floor decided it (the caller asks again with
 * `fresh`). */
export interface ToolTarget {
  readonly source?: string;
  readonly canonical?: string;
  readonly reused: boolean;
  readonly failed: readonly string[];
  readonly hiddenIn?: string;
}

/** Resolves a called name: `<source>__<tool>` directly; a bare name among the key's unprefixed
 * sources, whose lists it needs. */
export async function resolveToolName(
  catalog: ToolCatalog,
  principal: Principal,
  name: string,
  options: { fresh?: boolean } = {},
): Promise<ToolTarget> {
  const separator = name.indexOf(NAMESPACE_SEPARATOR);
  if (separator > 0) return { source: name.slice(0, separator), canonical: name, reused: false, failed: [] };
  const unprefixed = principal.workspace.mcpSources.filter(
    (source) => source.prefix !== 'always' && canSeeSource(principal, source.name),
  );
  if (unprefixed.length === 0 || GATEWAY_TOOL_NAMES.has(name)) return { reused: false, failed: [] };
  const workspace = principal.workspace.name;
  const lists = await Promise.all(unprefixed.map((source) => catalog.callTools(workspace, source, options)));
  const visible = lists.flatMap((list) => list.tools).filter((tool) => isVisible(principal, tool));
  const canonical = toolNames(principal, visible).bareOwner.get(name);
  const owner = canonical === undefined ? undefined : visible.find((tool) => tool.name === canonical);
  const reused = lists.some((list) => list.reused);
  if (owner !== undefined) return { source: owner.source, canonical: owner.name, reused, failed: [] };
  const failed = unprefixed
    .filter((source) => catalog.status(workspace, source.name).error !== undefined)
    .map((source) => source.name);
  // Only on this path, over the lists already read: does the name belong to a tool the key's tool
  // patterns hide? (Sources the key cannot see are never listed to answer it.)
  const all = lists.flatMap((list) => list.tools);
  const hidden = all.length === visible.length ? undefined : toolNames(principal, all).bareOwner.get(name);
  const hiddenIn = hidden === undefined ? undefined : all.find((tool) => tool.name === hidden)?.source;
  return hiddenIn === undefined ? { reused, failed } : { reused, failed, hiddenIn };
}
