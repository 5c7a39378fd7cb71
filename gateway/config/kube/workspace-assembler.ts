// Assembles one workspace from its rendered parts (operator/README.md): picks the revision for which
// every part is present, merges the parts' JSON fragments into one workspace document and collects
// the Secret entries its credential references name. Pure: validation happens in the caller.
import {
  FRAGMENT_KEY,
  PART_ANNOTATION,
  PARTS_ANNOTATION,
  REVISION_ANNOTATION,
  parsePartIndex,
  parseParts,
  type PartKind,
} from './rendered-contract.js';
import type { RenderedObject } from './rendered-object.js';

export type Assembly =
  | { readonly kind: 'absent' }
  | { readonly kind: 'incomplete'; readonly revisions: readonly string[] }
  | {
      readonly kind: 'complete';
      readonly revision: string;
      /** The merged fragments: a candidate `WorkspaceSchema` document, not yet validated. */
      readonly document: Record<string, unknown>;
      /** Secret entries by `<secret name>/<data key>`. */
      readonly secrets: ReadonlyMap<string, string>;
      readonly problems: readonly string[];
    };

interface Candidate {
  readonly revision: string;
  readonly parts: RenderedObject[];
  readonly newest: bigint;
}

export function assembleWorkspace(objects: readonly RenderedObject[]): Assembly {
  if (objects.length === 0) return { kind: 'absent' };
  const byRevision = new Map<string, RenderedObject[]>();
  for (const object of objects) {
    const revision = object.annotations[REVISION_ANNOTATION];
    if (revision === undefined) continue;
    const group = byRevision.get(revision) ?? [];
    group.push(object);
    byRevision.set(revision, group);
  }
  const complete: Candidate[] = [];
  for (const [revision, group] of byRevision) {
    const parts = completeParts(group);
    if (parts !== undefined) complete.push({ revision, parts, newest: newestVersion(parts) });
  }
  if (complete.length === 0) return { kind: 'incomplete', revisions: [...byRevision.keys()] };
  // Normally one revision is complete; if a stale one still is too, the most recently written wins.
  complete.sort((a, b) => (a.newest === b.newest ? 0 : a.newest > b.newest ? -1 : 1));
  return merge(complete[0] as Candidate);
}

/** The parts in order (ConfigMaps then Secrets), when every one the annotation names is present. */
function completeParts(group: readonly RenderedObject[]): RenderedObject[] | undefined {
  const counts = parseParts(group[0]?.annotations[PARTS_ANNOTATION]);
  if (counts === undefined) return undefined;
  const slots: Record<PartKind, (RenderedObject | undefined)[]> = {
    ConfigMap: new Array<RenderedObject | undefined>(counts.configmaps).fill(undefined),
    Secret: new Array<RenderedObject | undefined>(counts.secrets).fill(undefined),
  };
  for (const object of group) {
    if (object.annotations[PARTS_ANNOTATION] !== group[0]?.annotations[PARTS_ANNOTATION]) return undefined;
    const index = parsePartIndex(object.annotations[PART_ANNOTATION]);
    const slot = slots[object.kind];
    if (index === undefined || index >= slot.length || slot[index] !== undefined) return undefined;
    slot[index] = object;
  }
  const ordered = [...slots.ConfigMap, ...slots.Secret];
  return ordered.every((part) => part !== undefined) ? ordered : undefined;
}

function newestVersion(parts: readonly RenderedObject[]): bigint {
  let newest = 0n;
  for (const part of parts) {
    const version = /^\d+$/.test(part.resourceVersion) ? BigInt(part.resourceVersion) : 0n;
    if (version > newest) newest = version;
  }
  return newest;
}

function merge(candidate: Candidate): Assembly {
  const document: Record<string, unknown> = {};
  const secrets = new Map<string, string>();
  const problems: string[] = [];
  for (const part of candidate.parts) {
    const where = `${part.kind} ${part.name}`;
    const text = part.data[FRAGMENT_KEY];
    if (text === undefined) {
      problems.push(`${where}: has no ${FRAGMENT_KEY}`);
      continue;
    }
    let fragment: unknown;
    try {
      fragment = JSON.parse(text);
    } catch {
      problems.push(`${where}: ${FRAGMENT_KEY} is not valid JSON`);
      continue;
    }
    if (fragment === null || typeof fragment !== 'object' || Array.isArray(fragment)) {
      problems.push(`${where}: ${FRAGMENT_KEY} is not a JSON object`);
      continue;
    }
    for (const [field, value] of Object.entries(fragment as Record<string, unknown>)) {
      const existing = Object.hasOwn(document, field) ? document[field] : undefined;
      if (Array.isArray(value) && (existing === undefined || Array.isArray(existing))) {
        setOwn(document, field, [...((existing as unknown[] | undefined) ?? []), ...(value as unknown[])]);
      } else if (existing === undefined) {
        setOwn(document, field, value);
      } else {
        problems.push(`${where}: field ${field} is set by more than one part`);
      }
    }
    if (part.kind === 'Secret') {
      for (const [key, value] of Object.entries(part.data))
        if (key !== FRAGMENT_KEY) secrets.set(`${part.name}/${key}`, value);
    }
  }
  return { kind: 'complete', revision: candidate.revision, document, secrets, problems };
}

/** Plain assignment would let a fragment field named `__proto__` replace the prototype. */
function setOwn(target: Record<string, unknown>, field: string, value: unknown): void {
  Object.defineProperty(target, field, { value, enumerable: true, writable: true, configurable: true });
}
