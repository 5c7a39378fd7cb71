// The tools one key may call (spec §4.2 rule 2, §5.5): visible by its source and tool patterns and
// covered by its access level. Everything else is treated as if it did not exist. Both faces see a
// key's catalogue through these.
import { canSeeSource, canSeeTool, hasAccess, type Principal } from '../auth/index.js';
import type { CatalogTool, ToolCatalog, WorkspaceCatalog } from './tool-catalog.js';

/** The caller's catalog, optionally narrowed to one source. */
export async function catalogFor(
  catalog: ToolCatalog,
  principal: Principal,
  onlySource?: string,
): Promise<WorkspaceCatalog> {
  return catalog.workspaceCatalog(
    principal.workspace,
    (name) => canSeeSource(principal, name) && (onlySource === undefined || name === onlySource),
  );
}

export function isVisible(principal: Principal, tool: CatalogTool): boolean {
  return canSeeTool(principal, tool.source, tool.name);
}

export function isCallable(principal: Principal, tool: CatalogTool): boolean {
  return isVisible(principal, tool) && hasAccess(principal, tool.permission);
}
