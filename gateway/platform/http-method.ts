// HTTP methods as a metric label (issue 28.2, 28.5): Node's parser accepts any token as a method, so
// whatever a caller sends must not reach a metric label as itself (one series per invented method).
// Known methods are the OpenTelemetry HTTP conventions' list; every other method is `_OTHER` in
// telemetry. Which methods a path answers (405 with `Allow`) is the edge's: edge/allowed-methods.ts.

const KNOWN = new Set(['CONNECT', 'DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT', 'TRACE']);

/** The method as a bounded label value (OpenTelemetry: `_OTHER` for methods outside the known set). */
export function methodLabel(method: string): string {
  return KNOWN.has(method) ? method : '_OTHER';
}

/** The request path without query string. */
export function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}
