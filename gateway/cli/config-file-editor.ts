// Edits the config file in place for `key create` / `key revoke`, keeping comments and layout
// (YAML document API). The edited document is validated completely before it is written, and it
// is written atomically (temp file + rename) so a watching gateway never reads half a file.
import { randomBytes } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { isMap, isSeq, parseDocument, type Document, type YAMLMap, YAMLSeq } from 'yaml';
import { formatProblems, validateConfig, type GatewayConfig } from '../config/index.js';

export class ConfigEditError extends Error {}

export interface EditableConfig {
  readonly document: Document;
  readonly config: GatewayConfig;
}

export async function loadEditable(path: string): Promise<EditableConfig> {
  const text = await readFile(path, 'utf8');
  const document = parseDocument(text);
  if (document.errors.length > 0)
    throw new ConfigEditError(`${path}: not valid YAML/JSON: ${document.errors[0]?.message ?? ''}`);
  const result = validateConfig(document.toJS());
  if (!result.ok)
    throw new ConfigEditError(
      `${path}: invalid config; fix these first:\n${formatProblems(result.problems)}`,
    );
  return { document, config: result.config };
}

function workspaceNode(document: Document, name: string): YAMLMap {
  const workspaces = document.get('workspaces');
  if (isSeq(workspaces)) {
    for (const item of workspaces.items) if (isMap(item) && item.get('name') === name) return item;
  }
  throw new ConfigEditError(`no workspace named "${name}" in the config`);
}

export function appendKey(document: Document, workspace: string, key: Record<string, unknown>): void {
  const node = workspaceNode(document, workspace);
  let keys = node.get('keys');
  if (!isSeq(keys)) {
    keys = new YAMLSeq();
    node.set('keys', keys);
  }
  const seq = keys as YAMLSeq;
  // `keys: []` parses as a flow sequence; switch to block style so the file stays readable.
  if (seq.items.length === 0) seq.flow = false;
  const item = document.createNode(key);
  item.flow = false;
  seq.add(item);
}

/** Marks the key revoked; returns false when no key has that id. */
export function revokeKey(document: Document, id: string): boolean {
  const workspaces = document.get('workspaces');
  if (!isSeq(workspaces)) return false;
  for (const workspace of workspaces.items) {
    if (!isMap(workspace)) continue;
    const keys = workspace.get('keys');
    if (!isSeq(keys)) continue;
    for (const key of keys.items) {
      if (isMap(key) && key.get('id') === id) {
        key.set('revoked', true);
        return true;
      }
    }
  }
  return false;
}

export async function saveEditable(path: string, document: Document): Promise<void> {
  const result = validateConfig(document.toJS());
  if (!result.ok)
    throw new ConfigEditError(`refusing to write an invalid config:\n${formatProblems(result.problems)}`);
  const text = path.endsWith('.json') ? `${JSON.stringify(document.toJS(), null, 2)}\n` : document.toString();
  const temp = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(temp, text, { mode: 0o600 });
  await rename(temp, path);
}
