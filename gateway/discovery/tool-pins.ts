// Pinned tool definitions (issue 41, DESIGN D26): the digest of what the model sees of a tool (its
// upstream name, title, description, input and output schemas and annotations, after the admin's
// overrides) against the digest an admin approved. Under `pin` a new or changed tool is held out of
// every list and call until approved; under `warn` it is served and reported. The approved digests
// are config, so every replica decides alike; what a held tool changed is remembered per replica
// from the last approved definition it saw.
import { createHash } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/client';
import type { McpSourceConfig } from '../config/index.js';

/** Why a tool is not approved: no digest is approved for it, or a different one is. */
export type PinChange = 'new' | 'changed';

/** The parts of a definition a change is reported by. */
export const PINNED_FIELDS = ['title', 'description', 'inputSchema', 'outputSchema', 'annotations'] as const;
export type PinnedField = (typeof PINNED_FIELDS)[number];

/** A tool whose definition is not the approved one. */
export interface UnapprovedTool {
  /** The upstream's name (the key of `pinning.approved`). */
  readonly tool: string;
  readonly change: PinChange;
  /** The digest to approve for the definition served now. */
  readonly digest: string;
  readonly approvedDigest?: string;
  /** The fields that differ from the last approved definition this replica saw; unknown when it saw
   * none (after a restart), or every field for a new tool. */
  readonly fields?: readonly PinnedField[];
  /** The definition's description as the model would see it, cut to 1000 characters: what an admin
   * reviews before approving. */
  readonly description: string;
}

/** What one source's pinning decided for one listing. */
export interface PinVerdict {
  readonly mode: McpSourceConfig['pinning']['mode'];
  /** Under `pin`: left out of lists and calls. Under `warn`: served. */
  readonly unapproved: readonly UnapprovedTool[];
}

/** The fields of a definition that are pinned, in a fixed order. */
function pinnedView(tool: Tool): Record<string, unknown> {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    outputSchema: tool.outputSchema,
    annotations: tool.annotations,
  };
}

/** JSON with object keys sorted at every depth and undefined members left out, so two equal
 * definitions digest alike whatever order the upstream wrote their keys in. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  const entries = Object.keys(value)
    .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
  return `{${entries.join(',')}}`;
}

/** `sha256:<hex>` of a definition's pinned fields. */
export function definitionDigest(tool: Tool): string {
  return `sha256:${createHash('sha256')
    .update(canonicalJson(pinnedView(tool)), 'utf8')
    .digest('hex')}`;
}

/** Digests by the plain JSON of the pinned fields: an upstream that lists again (ttlMs 0 lists on
 * every tools/list) sends the same text, which is cheaper to serialise than to canonicalise and
 * hash. The key is only a cache key: the digest is always the canonical one. Bounded. */
const knownDigests = new Map<string, string>();
/** At most this many characters of keys are kept (about 8 MiB); then the cache starts again. */
const MAX_KNOWN_CHARS = 4 * 1024 * 1024;
let knownChars = 0;

function cachedDigest(tool: Tool): string {
  const key = JSON.stringify(pinnedView(tool));
  let digest = knownDigests.get(key);
  if (digest === undefined) {
    digest = definitionDigest(tool);
    if (knownChars + key.length > MAX_KNOWN_CHARS) {
      knownDigests.clear();
      knownChars = 0;
    }
    knownDigests.set(key, digest);
    knownChars += key.length;
  }
  return digest;
}

/** The fields in which two definitions differ. */
export function changedFields(before: Tool, after: Tool): PinnedField[] {
  const a = pinnedView(before);
  const b = pinnedView(after);
  return PINNED_FIELDS.filter((field) => canonicalJson(a[field] ?? null) !== canonicalJson(b[field] ?? null));
}

const MAX_REVIEW_DESCRIPTION = 1000;

/** Remembers, per workspace and source, the last approved definition of each tool this replica saw,
 * to tell what a changed one changed. Bounded by the sources' own tool lists. */
export class ApprovedDefinitions {
  private readonly seen = new Map<string, Map<string, Tool>>();

  remember(key: string, tool: Tool): void {
    let tools = this.seen.get(key);
    if (tools === undefined) this.seen.set(key, (tools = new Map<string, Tool>()));
    tools.set(tool.name, tool);
  }

  recall(key: string, name: string): Tool | undefined {
    return this.seen.get(key)?.get(name);
  }

  /** Forgets the sources no longer configured (their keys are not in `keep`). */
  retain(keep: ReadonlySet<string>): void {
    for (const key of this.seen.keys()) if (!keep.has(key)) this.seen.delete(key);
  }
}

/** Splits a source's presented tools into served and unapproved under its pinning. `memoryKey` names
 * the workspace and source in `memory`. */
export function judgeDefinitions(
  source: McpSourceConfig,
  tools: readonly Tool[],
  memory: ApprovedDefinitions,
  memoryKey: string,
): { served: readonly Tool[]; verdict: PinVerdict } {
  const { mode, approved } = source.pinning;
  if (mode === 'off') return { served: tools, verdict: { mode, unapproved: [] } };
  const served: Tool[] = [];
  const unapproved: UnapprovedTool[] = [];
  for (const tool of tools) {
    const digest = cachedDigest(tool);
    const approvedDigest = Object.hasOwn(approved, tool.name) ? approved[tool.name] : undefined;
    if (approvedDigest === digest) {
      memory.remember(memoryKey, tool);
      served.push(tool);
      continue;
    }
    const before = approvedDigest === undefined ? undefined : memory.recall(memoryKey, tool.name);
    unapproved.push({
      tool: tool.name,
      change: approvedDigest === undefined ? 'new' : 'changed',
      digest,
      ...(approvedDigest === undefined ? {} : { approvedDigest }),
      ...(approvedDigest === undefined
        ? { fields: [...PINNED_FIELDS] }
        : before === undefined
          ? {}
          : { fields: changedFields(before, tool) }),
      description: (tool.description ?? '').slice(0, MAX_REVIEW_DESCRIPTION),
    });
    if (mode === 'warn') served.push(tool);
  }
  return { served, verdict: { mode, unapproved } };
}
