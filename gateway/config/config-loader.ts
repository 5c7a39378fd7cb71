// Parses config text (YAML or JSON), validates it completely and freezes it. Problems come back as
// a list of `path: message` lines so an operator can fix every one in a single pass.
import { parseDocument } from 'yaml';
import type { z } from 'zod';
import { GatewayConfigSchema, type GatewayConfig } from './config-schema.js';
import { WorkspaceSchema, type WorkspaceConfig } from './workspace-schema.js';

export interface ConfigProblem {
  readonly path: string;
  readonly message: string;
}

export type ConfigParseResult =
  | { readonly ok: true; readonly config: GatewayConfig }
  | { readonly ok: false; readonly problems: readonly ConfigProblem[] };

export function parseConfigText(text: string, transform?: (document: unknown) => unknown): ConfigParseResult {
  const document = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (document.errors.length > 0) {
    return {
      ok: false,
      problems: document.errors.map((e) => ({
        path: `(line ${e.linePos?.[0]?.line ?? '?'})`,
        message: firstLine(e.message),
      })),
    };
  }
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: 1000 }) as unknown;
  } catch (error) {
    return { ok: false, problems: [{ path: '(root)', message: firstLine((error as Error).message) }] };
  }
  return validateConfig(transform === undefined ? value : transform(value));
}

/** The plain value of config text that parses as YAML/JSON, valid or not; undefined when it does
 * not parse. Used to honour revocations in a file that is otherwise rejected. */
export function parseRawDocument(text: string): unknown {
  const document = parseDocument(text, { uniqueKeys: true });
  if (document.errors.length > 0) return undefined;
  try {
    return document.toJS({ maxAliasCount: 1000 }) as unknown;
  } catch {
    return undefined;
  }
}

export function validateConfig(value: unknown): ConfigParseResult {
  const parsed = GatewayConfigSchema.safeParse(value ?? {});
  if (!parsed.success) return { ok: false, problems: toProblems(parsed.error) };
  return { ok: true, config: deepFreeze(parsed.data) };
}

/** One workspace on its own (the Kubernetes shape validates per workspace, D17). */
export function validateWorkspace(
  value: unknown,
):
  | { readonly ok: true; readonly workspace: WorkspaceConfig }
  | { readonly ok: false; readonly problems: readonly ConfigProblem[] } {
  const parsed = WorkspaceSchema.safeParse(value);
  if (!parsed.success) return { ok: false, problems: toProblems(parsed.error) };
  return { ok: true, workspace: deepFreeze(parsed.data) };
}

export function formatProblems(problems: readonly ConfigProblem[]): string {
  return problems.map((p) => `  ${p.path}: ${p.message}`).join('\n');
}

function toProblems(error: z.ZodError): ConfigProblem[] {
  return error.issues.map((issue) => ({ path: formatPath(issue.path), message: issue.message }));
}

export function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(root)';
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out;
}

function firstLine(message: string): string {
  return message.split('\n')[0] ?? message;
}

export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value as Record<string, unknown>)) deepFreeze(child);
  }
  return value;
}
