// Which upstream tool names the gateway accepts (issue 8 item 7). The grammar is the MCP spec's:
// 1–128 characters from A–Z a–z 0–9 `_` `.` `-`. On top of it, `__` is refused inside an upstream
// name, because it is the namespace separator (D5) and a client reading `<source>__<tool>` must be
// able to split it in one way only. A name that breaks the grammar, repeats an earlier name of the
// same list, or collides with it after namespacing is skipped and reported, never passed through.
import { NAMESPACE_SEPARATOR, namespacedToolName } from './tool-namer.js';

const ALLOWED = /^[A-Za-z0-9_.-]{1,128}$/;

export interface SkippedTool {
  /** The name as received, made printable (see `printableName`). */
  readonly name: string;
  readonly reason: string;
}

export interface NamedItem {
  readonly name: string;
}

/** Why `name` is not an acceptable upstream tool name, or undefined when it is. */
export function nameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string') return 'the name is not a string';
  if (name.length === 0) return 'the name is empty';
  if (name.length > 128) return 'the name is longer than 128 characters';
  if (!ALLOWED.test(name)) return 'the name has characters outside A-Z a-z 0-9 _ . -';
  if (name.includes(NAMESPACE_SEPARATOR)) return 'the name contains "__", the namespace separator';
  return undefined;
}

/** A name safe to show anywhere: code points outside printable ASCII become `\u{…}`, and the
 * result is cut to 80 characters. */
export function printableName(name: unknown): string {
  const text = typeof name === 'string' ? name : String(name);
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    out += code >= 0x20 && code <= 0x7e ? char : `\\u{${code.toString(16)}}`;
    if (out.length >= 80) return `${out.slice(0, 80)}…`;
  }
  return out;
}

/** Splits one source's list into the items the gateway serves and the ones it skips. */
export function screenNames<T extends NamedItem>(
  source: string,
  items: readonly T[],
): { accepted: T[]; skipped: SkippedTool[] } {
  const accepted: T[] = [];
  const skipped: SkippedTool[] = [];
  const seen = new Set<string>();
  const namespaced = new Set<string>();
  for (const item of items) {
    const problem = nameProblem(item.name);
    if (problem !== undefined) {
      skipped.push({ name: printableName(item.name), reason: problem });
      continue;
    }
    const full = namespacedToolName(source, item.name);
    if (seen.has(item.name)) {
      skipped.push({ name: item.name, reason: 'the name repeats an earlier tool of this source' });
      continue;
    }
    if (namespaced.has(full)) {
      skipped.push({ name: item.name, reason: `the namespaced name ${full} is already taken` });
      continue;
    }
    seen.add(item.name);
    namespaced.add(full);
    accepted.push(item);
  }
  return { accepted, skipped };
}
