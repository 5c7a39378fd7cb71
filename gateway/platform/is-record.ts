// Whether a parsed JSON value is an object with keys (not null, not an array): the check every
// reader of untrusted JSON (upstream answers, client requests, documents) makes before it indexes.

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
