// Reads a dot path (`data.items`, `fields.title`) out of parsed JSON; undefined when absent.
export function getPath(value: unknown, path: string): unknown {
  if (path === '') return value;
  let current = value;
  for (const part of path.split('.')) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

export function textOf(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}
