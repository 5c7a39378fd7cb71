// The names one key sees for prompts, resources and resource templates, and where a name it sends
// points (issue 24). Like tools (tool-names.ts): assigned over what the key can see by each source's
// `prefix` policy, the namespaced form (`<source>__<prompt>`, `agw://<source>/…`) accepted under
// every policy. A bare resource URI is routed to the unprefixed source that lists it, else to the one
// whose template matches it, else to the key's only unprefixed source; never to a guess among many.
// A `ui://` URI (MCP Apps, issue 43) is namespaced `ui://<source>__…` (resource-uri.ts), and the UI
// resources the key's tools link to count as claims of their sources beside the listed ones (a UI
// resource need not be listed), so a tool's link, a listing and a read all name it alike.
import { canSeeSource, type Principal } from '../auth/index.js';
import type { McpSourceConfig } from '../config/index.js';
import { anyBareNames, assignNames, NAMESPACE_SEPARATOR, type NameAssignment } from '../discovery/index.js';
import type { ItemList, UpstreamConnection } from '../upstream/index.js';
import {
  isUiUri,
  looksNamespacedUi,
  namespacedUri,
  namespacedUriTemplate,
  parseNamespacedUri,
} from './resource-uri.js';
import { fanOut, type FanOutDeps } from './source-fanout.js';
import { templateMatcher } from './uri-template-match.js';

type Item = Record<string, unknown>;
interface Listed {
  readonly source: string;
  readonly item: Item;
}

/** Longer URIs are not matched against templates (the matcher's cost grows with the length). */
const MAX_MATCHED_URI = 2048;

const isUnprefixed = (source: McpSourceConfig) => source.prefix !== 'always';

function policies(principal: Principal): Map<string, McpSourceConfig['prefix']> {
  return new Map(principal.workspace.mcpSources.map((s) => [s.name, s.prefix] as const));
}

/** A bare URI or template must not look like the gateway's own namespace. */
const bareUri = (uri: string) => (uri.startsWith('agw://') || looksNamespacedUi(uri) ? undefined : uri);

/** Listed items plus the claims of linked UI resources a source does not list (each counted once,
 * so a source that lists what its tools link to does not collide with itself). */
function withLinks(items: readonly Listed[], links: readonly Listed[]): readonly Listed[] {
  if (links.length === 0) return items;
  const listed = new Set(items.map(({ source, item }) => `${source}\0${String(item['uri'])}`));
  return [...items, ...links.filter(({ source, item }) => !listed.has(`${source}\0${String(item['uri'])}`))];
}

/** The link claims of unprefixed sources, when any source offers bare names (else none matter). */
export async function linkClaims(deps: FanOutDeps, principal: Principal): Promise<readonly Listed[]> {
  if (deps.uiLinks === undefined || !anyBareNames(principal.workspace.mcpSources)) return [];
  const policy = policies(principal);
  return (await deps.uiLinks(principal)).filter(({ source }) => policy.get(source) !== 'always');
}

function assign(
  principal: Principal,
  items: readonly Listed[],
  canonical: (source: string, value: string) => string,
  bare: (value: string) => string | undefined,
  field: string,
): { assignment: NameAssignment; canonicalOf: (entry: Listed) => string } {
  const policy = policies(principal);
  const canonicalOf = (entry: Listed) => canonical(entry.source, String(entry.item[field]));
  const assignment = assignNames(
    items.map((entry) => ({
      source: entry.source,
      policy: policy.get(entry.source) ?? 'always',
      canonical: canonicalOf(entry),
      bare: bare(String(entry.item[field])),
    })),
  );
  return { assignment, canonicalOf };
}

/** Items under their exposed value of `field`; those without one (collisions under never) left out. */
function expose(
  principal: Principal,
  items: readonly Listed[],
  canonical: (source: string, value: string) => string,
  bare: (value: string) => string | undefined,
  field: string,
  claims: readonly Listed[] = items,
): { source: string; item: Item; exposed: string }[] {
  if (!anyBareNames(principal.workspace.mcpSources))
    return items.map((entry) => ({ ...entry, exposed: canonical(entry.source, String(entry.item[field])) }));
  const { assignment, canonicalOf } = assign(principal, claims, canonical, bare, field);
  const out: { source: string; item: Item; exposed: string }[] = [];
  for (const entry of items) {
    const exposed = assignment.exposed.get(canonicalOf(entry));
    if (exposed !== undefined) out.push({ ...entry, exposed });
  }
  return out;
}

export const promptName = (source: string, name: string) => `${source}${NAMESPACE_SEPARATOR}${name}`;

export function exposePrompts(principal: Principal, items: readonly Listed[]) {
  return expose(principal, items, promptName, (name) => name, 'name');
}

/** Listed resources under their exposed URIs; `links` (the key's tools' UI links) claim too. */
export function exposeResources(
  principal: Principal,
  items: readonly Listed[],
  links: readonly Listed[] = [],
) {
  return expose(principal, items, namespacedUri, bareUri, 'uri', withLinks(items, links));
}

/** The names the key's tools show for their UI links (ui-links.ts): the URI a resources/list would
 * expose the resource under, with linked resources claiming like listed ones; the namespaced form
 * where that list would leave it out (a `never` name claimed twice), so a link always reads back. */
export async function uiLinkNamer(
  deps: FanOutDeps,
  principal: Principal,
  links: readonly Listed[],
): Promise<(source: string, uri: string) => string> {
  const policy = policies(principal);
  const unprefixed = links.filter(({ source }) => policy.get(source) !== 'always');
  if (unprefixed.length === 0) return namespacedUri;
  const listed = await fanOut(deps, principal, 'resources', listOf('resources'), isUnprefixed);
  const ui = listed.items.filter(({ item }) => isUiUri(String(item['uri'])));
  const { assignment } = assign(principal, withLinks(ui, unprefixed), namespacedUri, bareUri, 'uri');
  return (source, uri) => {
    const canonical = namespacedUri(source, uri);
    return policy.get(source) === 'always' ? canonical : (assignment.exposed.get(canonical) ?? canonical);
  };
}

export function exposeTemplates(principal: Principal, items: readonly Listed[]) {
  return expose(principal, items, namespacedUriTemplate, bareUri, 'uriTemplate');
}

/** The display name of a listed resource or template: prefixed when its exposed URI is. */
export function exposedItemName(source: string, item: Item, exposedUri: string): string {
  return bareUri(exposedUri) === undefined ? promptName(source, String(item['name'])) : String(item['name']);
}

function listOf(kind: 'prompts' | 'resources' | 'resourceTemplates') {
  return (connection: UpstreamConnection, signal: AbortSignal): Promise<ItemList> =>
    kind === 'prompts'
      ? connection.listPrompts(signal)
      : kind === 'resources'
        ? connection.listResources(signal)
        : connection.listResourceTemplates(signal);
}

/** The source and upstream name of a prompt the key names, or undefined when it sees none. */
export async function resolvePromptName(
  deps: FanOutDeps,
  principal: Principal,
  name: string,
): Promise<{ source: string; name: string } | undefined> {
  const separator = name.indexOf(NAMESPACE_SEPARATOR);
  if (separator > 0) return { source: name.slice(0, separator), name: name.slice(separator + 2) };
  if (!principal.workspace.mcpSources.some(isUnprefixed)) return undefined;
  const { items } = await fanOut(deps, principal, 'prompts', listOf('prompts'), isUnprefixed);
  const { assignment } = assign(principal, items, promptName, (value) => value, 'name');
  const owner = assignment.bareOwner.get(name);
  if (owner === undefined) return undefined;
  const at = owner.indexOf(NAMESPACE_SEPARATOR);
  return { source: owner.slice(0, at), name: owner.slice(at + 2) };
}

export interface ResolvedUri {
  readonly source: string;
  /** The upstream's URI (or template, for a completion ref). */
  readonly uri: string;
  /** How the client wrote it: answers carry the URI back in the same form. */
  readonly form: 'encoded' | 'verbatim' | 'ui' | 'bare';
}

/** Where a resource URI the key sends points: the namespaced forms directly; a bare URI by the
 * rules above. Undefined when no visible source has it (or several could). */
export async function resolveResourceUri(
  deps: FanOutDeps,
  principal: Principal,
  uri: string,
  options: { template?: boolean } = {},
): Promise<ResolvedUri | undefined> {
  const parsed = parseNamespacedUri(uri);
  if (parsed !== undefined) return parsed;
  const sources = principal.workspace.mcpSources.filter(
    (source) => isUnprefixed(source) && canSeeSource(principal, source.name),
  );
  if (sources.length === 0) return undefined;
  if (options.template !== true) {
    const resources = await fanOut(deps, principal, 'resources', listOf('resources'), isUnprefixed);
    const links = isUiUri(uri) ? await linkClaims(deps, principal) : [];
    const claims = withLinks(resources.items, links);
    const owner = assign(principal, claims, namespacedUri, bareUri, 'uri').assignment.bareOwner.get(uri);
    const found = owner === undefined ? undefined : parseNamespacedUri(owner);
    if (found !== undefined) return { source: found.source, uri, form: 'bare' };
  }
  const templates = await fanOut(
    deps,
    principal,
    'resourceTemplates',
    listOf('resourceTemplates'),
    isUnprefixed,
  );
  const { assignment } = assign(principal, templates.items, namespacedUriTemplate, bareUri, 'uriTemplate');
  const owners = new Set<string>();
  for (const [template, canonical] of assignment.bareOwner) {
    const matches =
      options.template === true
        ? template === uri
        : uri.length <= MAX_MATCHED_URI && templateMatcher(template).test(uri);
    const owner = matches ? parseNamespacedUri(canonical)?.source : undefined;
    if (owner !== undefined) owners.add(owner);
  }
  if (owners.size === 1) return { source: [...owners][0] ?? '', uri, form: 'bare' };
  if (owners.size > 1 || options.template === true || bareUri(uri) === undefined) return undefined;
  // Resources need not be listed: with one unprefixed source the key can see, that source decides.
  return sources.length === 1 ? { source: sources[0]?.name ?? '', uri, form: 'bare' } : undefined;
}

/** The URI an answer carries for an upstream URI of `source`: the client's own form for the URI it
 * asked for; otherwise namespaced for an `always` source and the upstream's own for the others. */
export function clientUri(
  source: McpSourceConfig,
  upstreamUri: string,
  asked?: { readonly requested: string; readonly resolved: ResolvedUri },
): string {
  if (asked !== undefined && asked.resolved.form !== 'encoded' && upstreamUri === asked.resolved.uri)
    return asked.requested;
  return source.prefix === 'always' || bareUri(upstreamUri) === undefined
    ? namespacedUri(source.name, upstreamUri)
    : upstreamUri;
}
