// Namespaced resource URIs (issue 3: resources exposed "namespaced the same way" as tools): an
// upstream URI becomes `agw://<source>/<percent-encoded URI>`, unique across sources and reversible.
// Resource templates (issue 24) use a second, verbatim form, `agw://<source>/~/<upstream URI>`: a
// client expands the template itself (RFC 6570), and no template can percent-encode a variable's
// value twice, so the upstream part is kept as is and expands exactly as the upstream's own would.
const PREFIX = 'agw://';
/** Marks the verbatim form. The encoded form never holds a `/` after the source (encodeURIComponent
 * escapes it), so a remainder starting `~/` can only be the verbatim form. */
const VERBATIM = '~/';

export function namespacedUri(source: string, uri: string): string {
  return `${PREFIX}${source}/${encodeURIComponent(uri)}`;
}

/** The gateway's template for an upstream template: expanding it with any values gives
 * `agw://<source>/~/` followed by exactly what expanding the upstream template gives. */
export function namespacedUriTemplate(source: string, uriTemplate: string): string {
  return `${PREFIX}${source}/${VERBATIM}${uriTemplate}`;
}

/** The source and upstream URI (or template) of either form; undefined when it is neither. */
export function parseNamespacedUri(
  value: string,
): { source: string; uri: string; form: 'encoded' | 'verbatim' } | undefined {
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
