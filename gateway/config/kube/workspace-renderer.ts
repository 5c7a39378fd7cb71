// The operator's side of the contract (operator/README.md): splits one workspace document into
// ConfigMap and Secret parts that each stay under the budget, and names the revision by a hash of
// everything rendered. Lives next to the assembler so the two directions of the contract are tested
// together; the gateway itself never renders.
import { createHash } from 'node:crypto';
import {
  FRAGMENT_KEY,
  MANAGED_BY_LABEL,
  MANAGED_BY_VALUE,
  PART_ANNOTATION,
  PARTS_ANNOTATION,
  REVISION_ANNOTATION,
  WORKSPACE_LABEL,
  WORKSPACE_NAMESPACE_LABEL,
  formatParts,
  renderedObjectName,
  type PartKind,
} from './rendered-contract.js';

/** Object data stays below this many bytes; Kubernetes refuses objects over 1 MiB. */
export const DEFAULT_PART_BUDGET_BYTES = 768 * 1024;

/** The JSON bytes one list item (`field` names the list) takes in a part; one part holds an item of
 * at most half the budget. The operator checks a source against this before it renders it (an
 * OpenAPI document inline, issue 44) so one large item fails alone, not the whole workspace. */
export function renderedItemBytes(field: string, item: unknown): number {
  return Buffer.byteLength(JSON.stringify(item)) + field.length + 8;
}

/** The largest list item a part takes under the default budget. */
export const MAX_RENDERED_ITEM_BYTES = DEFAULT_PART_BUDGET_BYTES / 2;

export interface WorkspaceToRender {
  readonly name: string;
  readonly namespace: string;
  readonly displayName?: string;
  /** The workspace's rate and quota limits (config contract `limits`). */
  readonly limits?: Readonly<Record<string, number>>;
  /** The workspace's own embeddings provider (config contract `embeddings`), or false for none; unset:
   * the gateway-wide one. */
  readonly embeddings?: Readonly<Record<string, unknown>> | false;
  /** What tools/list offers the workspace's keys (config contract `toolDisclosure`); unset: `all`. */
  readonly toolDisclosure?: string;
  /** Policy, per-tool limits and guardrails (config contract `governance`, issue 41). */
  readonly governance?: Readonly<Record<string, unknown>>;
  /** Who may sign in with an OAuth access token (config contract `identity`); its secrets are
   * references into `credentials`, like the sources'. */
  readonly identity?: Readonly<Record<string, unknown>>;
  readonly mcpSources: readonly unknown[];
  readonly dataSources: readonly unknown[];
  readonly keys: readonly unknown[];
  /** Resolved credential values by data key; every one goes into Secret part 0 (see
   * credentialSecretName), where the sources' `kubernetesSecret` references point. */
  readonly credentials: ReadonlyMap<string, string>;
}

export interface RenderedPart {
  readonly kind: PartKind;
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  /** Text data; the operator base64-encodes Secret data when it writes. */
  readonly data: Readonly<Record<string, string>>;
}

export interface RenderedWorkspace {
  readonly revision: string;
  readonly parts: readonly RenderedPart[];
}

export class WorkspaceTooLargeError extends Error {
  constructor(
    readonly workspace: string,
    what: string,
  ) {
    super(`workspace ${workspace}: ${what} does not fit in one Kubernetes object`);
    this.name = 'WorkspaceTooLargeError';
  }
}

/** The rendered Secret that holds a workspace's resolved upstream credentials. */
export function credentialSecretName(workspace: string): string {
  return renderedObjectName(workspace, 'Secret', 0);
}

/** A credential's data key: its place plus a hash of its value, so a rotated value is a new key. */
export function credentialDataKey(source: string, field: string, value: string): string {
  const digest = createHash('sha256').update(value, 'utf8').digest('hex').slice(0, 12);
  return `cred.${source}.${field}.${digest}`;
}

export function renderWorkspace(
  workspace: WorkspaceToRender,
  budgetBytes: number = DEFAULT_PART_BUDGET_BYTES,
): RenderedWorkspace {
  const head: Record<string, unknown> = { name: workspace.name };
  if (workspace.displayName !== undefined) head['displayName'] = workspace.displayName;
  if (workspace.limits !== undefined) head['limits'] = workspace.limits;
  if (workspace.embeddings !== undefined) head['embeddings'] = workspace.embeddings;
  if (workspace.toolDisclosure !== undefined) head['toolDisclosure'] = workspace.toolDisclosure;
  if (workspace.identity !== undefined) head['identity'] = workspace.identity;
  if (workspace.governance !== undefined) head['governance'] = workspace.governance;
  // The head is never split: it must leave room for the list items of part 0.
  if (Buffer.byteLength(JSON.stringify(head)) > budgetBytes / 2)
    throw new WorkspaceTooLargeError(
      workspace.name,
      'its settings (identity, governance, limits, embeddings)',
    );
  const configFragments = pack(
    head,
    [
      ...workspace.mcpSources.map((item) => ['mcpSources', item] as const),
      ...workspace.dataSources.map((item) => ['dataSources', item] as const),
    ],
    budgetBytes,
    workspace.name,
  ).map((fragment) => ({ [FRAGMENT_KEY]: JSON.stringify(fragment) }));

  let credentialBytes = 0;
  const credentialData: Record<string, string> = {};
  for (const [key, value] of [...workspace.credentials].sort(([a], [b]) => a.localeCompare(b))) {
    credentialData[key] = value;
    credentialBytes += Buffer.byteLength(key) + Buffer.byteLength(value);
  }
  if (credentialBytes > budgetBytes / 2) throw new WorkspaceTooLargeError(workspace.name, 'its credentials');
  const keyFragments = pack(
    { keys: [] },
    workspace.keys.map((item) => ['keys', item] as const),
    budgetBytes,
    workspace.name,
    credentialBytes,
  );
  const secretData = keyFragments.map((fragment, index) => ({
    ...(index === 0 ? credentialData : {}),
    [FRAGMENT_KEY]: JSON.stringify(fragment),
  }));

  const revision = createHash('sha256')
    .update(JSON.stringify([configFragments, secretData]))
    .digest('hex')
    .slice(0, 16);
  const parts = formatParts({ configmaps: configFragments.length, secrets: secretData.length });
  const labels = {
    [MANAGED_BY_LABEL]: MANAGED_BY_VALUE,
    [WORKSPACE_LABEL]: workspace.name,
    [WORKSPACE_NAMESPACE_LABEL]: workspace.namespace,
  };
  const part = (kind: PartKind, index: number, data: Record<string, string>): RenderedPart => ({
    kind,
    name: renderedObjectName(workspace.name, kind, index),
    labels,
    annotations: {
      [REVISION_ANNOTATION]: revision,
      [PARTS_ANNOTATION]: parts,
      [PART_ANNOTATION]: String(index),
    },
    data,
  });
  return {
    revision,
    parts: [
      ...configFragments.map((data, index) => part('ConfigMap', index, data)),
      ...secretData.map((data, index) => part('Secret', index, data)),
    ],
  };
}

/** Greedy packing of list items into fragments of at most `budget` JSON bytes; the first fragment
 * starts from `head` and carries `reserved` bytes of other data. */
function pack(
  head: Record<string, unknown>,
  items: readonly (readonly [string, unknown])[],
  budget: number,
  workspace: string,
  reserved = 0,
): Record<string, unknown>[] {
  const fragments: Record<string, unknown>[] = [];
  let current: Record<string, unknown> = { ...head };
  let size = reserved + Buffer.byteLength(JSON.stringify(current));
  for (const [field, item] of items) {
    const itemSize = renderedItemBytes(field, item);
    if (itemSize > budget / 2) throw new WorkspaceTooLargeError(workspace, `one of its ${field}`);
    if (size + itemSize > budget) {
      fragments.push(current);
      current = {};
      size = 2;
    }
    const list = (current[field] as unknown[] | undefined) ?? [];
    list.push(item);
    current[field] = list;
    size += itemSize;
  }
  fragments.push(current);
  return fragments;
}
