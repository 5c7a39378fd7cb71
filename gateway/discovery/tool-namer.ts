// Namespaced tool names (D5): always `<source>__<tool>`, at most 64 characters. A longer name is cut
// and given a deterministic hash suffix so it stays unique and stable across restarts and replicas.
import { createHash } from 'node:crypto';

export const NAMESPACE_SEPARATOR = '__';
export const MAX_TOOL_NAME = 64;

export function namespacedToolName(source: string, tool: string): string {
  const full = `${source}${NAMESPACE_SEPARATOR}${tool}`;
  if (full.length <= MAX_TOOL_NAME) return full;
  const suffix = createHash('sha256').update(full).digest('hex').slice(0, 8);
  return `${full.slice(0, MAX_TOOL_NAME - suffix.length - 1)}_${suffix}`;
}
