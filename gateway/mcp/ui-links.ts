// MCP Apps links in tool definitions (issue 43; ext-apps 2026-01-26 §Resource Discovery): a tool
// names its UI resource in `_meta.ui.resourceUri`, in the deprecated flat `_meta["ui/resourceUri"]`,
// or (OpenAI Apps SDK) in `_meta["openai/outputTemplate"]`. The gateway shows each `ui://` value
// under the name a client reads that resource by (item-names.ts `uiLinkNamer`); every other key
// of `_meta`, `_meta.ui.visibility` included, passes through untouched.
import { hasAccess, type Principal } from '../auth/index.js';
import {
  catalogFor,
  exposeTools,
  isVisible,
  type CatalogTool,
  type ToolCatalog,
} from '../discovery/index.js';
import { UI_FLAT_LINK_KEYS } from '../protocol/index.js';
import { isUiUri } from './resource-uri.js';

type Record_ = Record<string, unknown>;

const isRecord = (value: unknown): value is Record_ =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const uiLink = (value: unknown): string | undefined =>
  typeof value === 'string' && isUiUri(value) ? value : undefined;

/** The `ui://` URIs a tool definition names (each once). */
export function uiLinksOf(definition: { readonly _meta?: unknown }): string[] {
  const meta = definition._meta;
  if (!isRecord(meta)) return [];
  const links = new Set<string>();
  const nested = isRecord(meta['ui']) ? uiLink(meta['ui']['resourceUri']) : undefined;
  if (nested !== undefined) links.add(nested);
  for (const key of UI_FLAT_LINK_KEYS) {
    const flat = Object.hasOwn(meta, key) ? uiLink(meta[key]) : undefined;
    if (flat !== undefined) links.add(flat);
  }
  return [...links];
}

/** The definition with each `ui://` link replaced by `rename(link)`: a new object when it has one,
 * the same object otherwise. */
export function renameUiLinks<T extends { readonly _meta?: unknown }>(
  definition: T,
  rename: (uri: string) => string,
): T {
  if (uiLinksOf(definition).length === 0) return definition;
  const meta = { ...(definition._meta as Record_) };
  const ui = meta['ui'];
  if (isRecord(ui)) {
    const nested = uiLink(ui['resourceUri']);
    if (nested !== undefined) meta['ui'] = { ...ui, resourceUri: rename(nested) };
  }
  for (const key of UI_FLAT_LINK_KEYS) {
    const flat = Object.hasOwn(meta, key) ? uiLink(meta[key]) : undefined;
    if (flat !== undefined) meta[key] = rename(flat);
  }
  return { ...definition, _meta: meta };
}

/** The tools tools/list shows a key, under their exposed names: visible, named, and callable. */
export function listedTools(
  principal: Principal,
  tools: readonly CatalogTool[],
): { tool: CatalogTool; name: string }[] {
  return exposeTools(
    principal,
    tools.filter((tool) => isVisible(principal, tool)),
  ).filter(({ tool }) => hasAccess(principal, tool.permission));
}

/** The UI resources the tools a key is shown name, as claims of their sources (item-names.ts counts
 * them with the listed resources: a UI resource need not be listed). */
export function uiLinkClaims(
  tools: readonly { readonly tool: CatalogTool }[],
): { source: string; item: Record_ }[] {
  const seen = new Set<string>();
  const claims: { source: string; item: Record_ }[] = [];
  for (const { tool } of tools)
    for (const uri of uiLinksOf(tool.definition)) {
      const key = `${tool.source}\0${uri}`;
      if (seen.has(key)) continue;
      seen.add(key);
      claims.push({ source: tool.source, item: { uri } });
    }
  return claims;
}

/** The claims of the tools a key is shown, from the catalog (for resource lists and reads). */
export async function keyUiLinkClaims(
  catalog: ToolCatalog,
  principal: Principal,
): Promise<{ source: string; item: Record_ }[]> {
  const { tools } = await catalogFor(catalog, principal);
  return uiLinkClaims(listedTools(principal, tools));
}
