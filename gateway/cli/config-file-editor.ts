// Edits the config file in place for `key create` / `key revoke`, keeping comments and layout
// (YAML document API). The edited document is validated completely before it is written — a
// revocation may be written into a file that already had unrelated problems, as long as it adds
// none — and it is written atomically (temp file + rename) so a watching gateway never reads half
// a file.
import { randomBytes } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { isMap, isSeq, parseDocument, type Document, type YAMLMap, YAMLSeq } from 'yaml';
import { formatProblems, validateConfig, type ConfigProblem, type GatewayConfig } from '../config/index.js';

export class ConfigEditError extends Error {
  override readonly name = 'ConfigEditError';
}

export interface EditableConfig {
  readonly document: Document;
  readonly config: GatewayConfig;
}

export async function loadEditable(path: string): Promise<EditableConfig> {
  const loaded = await loadParsed(path);
  if (loaded.config === undefined)
    throw new ConfigEditError(
      `${path}: invalid config; fix these first:\n${formatProblems(loaded.problems)}`,
    );
  return { document: loaded.document, config: loaded.config };
}

/** A file that parses, valid or not (revocation and listing must not wait for unrelated fixes). */
export interface ParsedConfigFile {
  readonly document: Document;
  /** Present when the whole file is valid. */
  readonly config: GatewayConfig | undefined;
  readonly problems: readonly ConfigProblem[];
}

export async function loadParsed(path: string): Promise<ParsedConfigFile> {
  const text = await readFile(path, 'utf8');
  const document = parseDocument(text);
  if (document.errors.length > 0)
    throw new ConfigEditError(`${path}: not valid YAML/JSON: ${document.errors[0]?.message ?? ''}`);
  const result = validateConfig(document.toJS());
  return result.ok
    ? { document, config: result.config, problems: [] }
    : { document, config: undefined, problems: result.problems };
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

/** Writes the document; it must be valid, unless `tolerate` lists the problems it already had
 * before the edit (an edit may never add one). */
export async function saveEditable(
  path: string,
  document: Document,
  tolerate: readonly ConfigProblem[] = [],
): Promise<void> {
  const result = validateConfig(document.toJS());
  if (!result.ok) {
    const known = new Set(tolerate.map((p) => `${p.path}\0${p.message}`));
    const added = result.problems.filter((p) => !known.has(`${p.path}\0${p.message}`));
    if (tolerate.length === 0 || added.length > 0)
      throw new ConfigEditError(
        `refusing to write an invalid config:\n${formatProblems(added.length > 0 ? added : result.problems)}`,
      );
  }
  const text = path.endsWith('.json') ? `${JSON.stringify(document.toJS(), null, 2)}\n` : document.toString();
  const temp = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(temp, text, { mode: 0o600 });
  await rename(temp, path);
}

/** Writes `approvals` (upstream tool name to digest) into the source's `pinning.approved`, keeping
 * the approvals already there and the source's mode (`pin` when it had none). */
export function approveTools(
  document: Document,
  workspace: string,
  source: string,
  approvals: Readonly<Record<string, string>>,
): void {
  const sources = workspaceNode(document, workspace).get('mcpSources');
  const node = isSeq(sources)
    ? sources.items.find((item): item is YAMLMap => isMap(item) && item.get('name') === source)
    : undefined;
  if (node === undefined)
    throw new ConfigEditError(`no MCP source named "${source}" in workspace "${workspace}"`);
  let pinning = node.get('pinning');
  if (!isMap(pinning)) {
    pinning = document.createNode({ mode: 'pin' });
    node.set('pinning', pinning);
  }
  const map = pinning as YAMLMap;
  let approved = map.get('approved');
  if (!isMap(approved)) {
    approved = document.createNode({});
    map.set('approved', approved);
  }
  const entries = approved as YAMLMap;
  entries.flow = false;
  for (const [tool, digest] of Object.entries(approvals)) entries.set(tool, digest);
}
