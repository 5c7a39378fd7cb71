// The built-in guardrail (issue 41 part 5, docs/security.md "Secret masking"): credentials in what a
// tool or the knowledge index returns are replaced by `[masked:<kind>]` before the caller sees them.
// Every string of a result is scanned (text content, structuredContent leaves, embedded resource
// text), except base64 payloads (`blob`, an image's or audio's `data`). Values are copied only along
// the paths where something was masked: results and knowledge records may be shared objects. What
// was masked is counted by kind; the text is never logged.
import type { WorkspaceConfig } from '../config/index.js';
import { count } from '../telemetry/metrics.js';
import { maskFor, maskPrivateKeys, SECRET_PATTERNS, type SecretKind } from './secret-patterns.js';

/** How many secrets of each kind one value held. */
export type MaskCounts = Partial<Record<SecretKind, number>>;

/** No credential shape is shorter (an AWS access key id is 20 characters, a JWT at least 16). */
const SHORTEST_SECRET = 16;
/** Past this nesting the rest is masked as JSON text (no recursion that a hostile result can
 * overflow); the replacements hold no quote or backslash, so the JSON stays valid. */
const MAX_WALK_DEPTH = 256;
/** A property holding a bare AWS secret access key: its name is the context the key needs. */
const SECRET_KEY_PROPERTY = /secret_?access_?key$/i;
const BARE_AWS_SECRET = /^[A-Za-z0-9/+]{40}$/;

function tally(counts: MaskCounts, kind: SecretKind): void {
  counts[kind] = (counts[kind] ?? 0) + 1;
}

/** `text` with every credential masked; what was masked is added to `counts`. */
export function maskText(text: string, counts: MaskCounts): string {
  if (text.length < SHORTEST_SECRET) return text;
  let out = maskPrivateKeys(text, () => tally(counts, 'private_key'));
  for (const { kind, pattern, needle, foldCase } of SECRET_PATTERNS) {
    if (!(foldCase === true ? includesFolded(out, needle) : out.includes(needle))) continue;
    out = out.replace(pattern, (_match, kept: unknown) => {
      tally(counts, kind);
      return (typeof kept === 'string' ? kept : '') + maskFor(kind);
    });
  }
  return out;
}

const foldedNeedles = new Map<string, RegExp>();
function includesFolded(text: string, needle: string): boolean {
  let pattern = foldedNeedles.get(needle);
  if (pattern === undefined) {
    pattern = new RegExp(needle, 'i');
    foldedNeedles.set(needle, pattern);
  }
  return pattern.test(text);
}

/** `value` with every credential in its strings masked; the same object when nothing was. */
export function maskValue(value: unknown, counts: MaskCounts): unknown {
  return walk(value, counts, 0);
}

function walk(value: unknown, counts: MaskCounts, depth: number): unknown {
  if (typeof value === 'string') return maskText(value, counts);
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_WALK_DEPTH) return maskAsJson(value, counts);
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i += 1) {
      const item: unknown = value[i];
      const masked = walk(item, counts, depth + 1);
      if (masked !== item) {
        copy ??= value.slice();
        copy[i] = masked;
      }
    }
    return copy ?? value;
  }
  const record = value as Record<string, unknown>;
  const binary = record['type'] === 'image' || record['type'] === 'audio';
  let copy: Record<string, unknown> | undefined;
  for (const name of Object.keys(record)) {
    const item = record[name];
    if (name === 'blob' || (binary && name === 'data')) continue;
    let masked: unknown;
    if (typeof item === 'string' && SECRET_KEY_PROPERTY.test(name) && BARE_AWS_SECRET.test(item)) {
      tally(counts, 'aws_secret_access_key');
      masked = maskFor('aws_secret_access_key');
    } else masked = walk(item, counts, depth + 1);
    if (masked !== item) {
      copy ??= { ...record };
      copy[name] = masked;
    }
  }
  return copy ?? value;
}

function maskAsJson(value: object, counts: MaskCounts): unknown {
  const text = JSON.stringify(value);
  const masked = maskText(text, counts);
  if (masked === text) return value;
  try {
    return JSON.parse(masked) as unknown;
  } catch {
    // An unterminated key block masked past the end of its string: the subtree stays text.
    return masked;
  }
}

/** The total of a count. */
export function maskedTotal(counts: MaskCounts): number {
  let total = 0;
  for (const n of Object.values(counts)) total += n;
  return total;
}

/** `value` as the caller of `workspace` may see it: masked unless the workspace turned masking off
 * (`governance.guardrails.maskSecrets: false`); each masked secret is counted by kind. */
export function maskSecretsFor<T>(workspace: Pick<WorkspaceConfig, 'name' | 'governance'>, value: T): T {
  if (!workspace.governance.guardrails.maskSecrets) return value;
  const counts: MaskCounts = {};
  const masked = maskValue(value, counts) as T;
  if (masked === value) return value;
  for (const [kind, n] of Object.entries(counts))
    count('agw.guardrail.masked', { 'agw.workspace': workspace.name, 'agw.secret.kind': kind }, n);
  return masked;
}
