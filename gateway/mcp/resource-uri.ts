// Namespaced resource URIs (issue 3: resources exposed "namespaced the same way" as tools): an
// upstream URI becomes `agw://<source>/<percent-encoded URI>`, unique across sources and reversible.
// Resource templates (issue 24) use a second, verbatim form, `agw://<source>/~/<upstream URI>`: a
// client expands the template itself (RFC 6570), and no template can percent-encode a variable's
// value twice, so the upstream part is kept as is and expands exactly as the upstream's own would.
// MCP Apps resources (issue 43) must keep the `ui://` scheme (hosts refuse any other), so a `ui://`
// URI or template is namespaced by folding the source into its authority: `ui://<source>__<rest>`.
import { UI_SCHEME } from '../protocol/index.js';

const PREFIX = 'agw://';
/** Marks the verbatim form. The encoded form never holds a `/` after the source (encodeURIComponent
 * escapes it), so a remainder starting `~/` can only be the verbatim form. */
const VERBATIM = '~/';
/** `ui://<source>__`: source names are DNS labels (config NAME), which hold no `_`, `/`, `?` or `#`,
 * so the first `__` ends the source and lies inside the authority; the rest is the upstream's own
 * URI after `ui://`, kept verbatim (so a `ui://` template expands exactly as the upstream's). */
const UI_FORM = /^ui:\/\/([a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?)__/;

export const isUiUri = (uri: string): boolean => uri.startsWith(UI_SCHEME);

/** Whether a URI is spelt like the gateway's own `ui://<source>__…` form: such an upstream URI is
 * never exposed bare, so the two cannot be confused. */
export const looksNamespacedUi = (uri: string): boolean => UI_FORM.test(uri);

const uiForm = (source: string, uri: string) => `${UI_SCHEME}${source}__${uri.slice(UI_SCHEME.length)}`;

export function namespacedUri(source: string, uri: string): string {
  return isUiUri(uri) ? uiForm(source, uri) : `${PREFIX}${source}/${encodeURIComponent(uri)}`;
}

/** The gateway's template for an upstream template: expanding it with any values gives
 * `agw://<source>/~/` (or `ui://<source>__`) followed by exactly what expanding the upstream's gives. */
export function namespacedUriTemplate(source: string, uriTemplate: string): string {
  return isUiUri(uriTemplate) ? uiForm(source, uriTemplate) : `${PREFIX}${source}/${VERBATIM}${uriTemplate}`;
}

/** The source and upstream URI (or template) of any form; undefined when it is none. */
export function parseNamespacedUri(
  value: string,
): { source: string; uri: string; form: 'encoded' | 'verbatim' | 'ui' } | undefined {
  const ui = UI_FORM.exec(value);
  if (ui !== null) {
    const source = ui[1] ?? '';
    return { source, uri: `${UI_SCHEME}${value.slice(ui[0].length)}`, form: 'ui' };
  }
  if (!value.startsWith(PREFIX)) return undefined;
  const rest = value.slice(PREFIX.length);
  const slash = rest.indexOf('/');
  if (slash <= 0) return undefined;
  const source = rest.slice(0, slash);
  const tail = rest.slice(slash + 1);
  if (tail.startsWith(VERBATIM)) {
    const uri = tail.slice(VERBATIM.length);
    return uri === '' ? undefined : { source, uri, form: 'verbatim' };
  }
  try {
    return { source, uri: decodeURIComponent(tail), form: 'encoded' };
  } catch {
    return undefined;
  }
}
