// Namespaced resource URIs (issue 3: resources exposed "namespaced the same way" as tools): an
// upstream URI becomes `agw://<source>/<percent-encoded URI>`, unique across sources and reversible.
const PREFIX = 'agw://';

export function namespacedUri(source: string, uri: string): string {
  return `${PREFIX}${source}/${encodeURIComponent(uri)}`;
}

export function parseNamespacedUri(value: string): { source: string; uri: string } | undefined {
  if (!value.startsWith(PREFIX)) return undefined;
  const rest = value.slice(PREFIX.length);
  const slash = rest.indexOf('/');
  if (slash <= 0) return undefined;
  try {
    return { source: rest.slice(0, slash), uri: decodeURIComponent(rest.slice(slash + 1)) };
  } catch {
    return undefined;
  }
}
