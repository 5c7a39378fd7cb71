// Deny-by-default authorization over a principal (spec §5.2, §5.5). Visibility comes from the key's
// source and tool patterns; what it may do comes from its access level. A tool the key cannot see
// must be treated exactly like a tool that does not exist (no existence oracle).
import type { Access } from '../config/index.js';
import type { Principal } from './principal.js';

const compiled = new Map<string, RegExp>();

/** Glob match: `*` matches any run of characters, everything else is literal; whole-string match. */
export function matchesPattern(pattern: string, value: string): boolean {
  let regex = compiled.get(pattern);
  if (regex === undefined) {
    const body = pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\/-]/g, '\\$&'))
      .join('.*');
    regex = new RegExp(`^${body}$`);
    if (compiled.size > 10_000) compiled.clear();
    compiled.set(pattern, regex);
  }
  return regex.test(value);
}

export function matchesAny(patterns: readonly string[], value: string): boolean {
  return patterns.some((pattern) => matchesPattern(pattern, value));
}

export function canSeeSource(principal: Principal, sourceName: string): boolean {
  return matchesAny(principal.sourcePatterns, sourceName);
}

/** Whether the tool is visible to the key at all (source and tool patterns). */
export function canSeeTool(principal: Principal, sourceName: string, namespacedTool: string): boolean {
  return canSeeSource(principal, sourceName) && matchesAny(principal.toolPatterns, namespacedTool);
}

/** Whether the key's access level covers the required permission; write includes read. */
export function hasAccess(principal: Principal, required: Access): boolean {
  return required === 'read' || principal.access === 'write';
}
