// Which name a client sees for an upstream tool, prompt, resource URI or resource template (issue 24),
// by each source's `prefix` policy. Every item has a canonical, namespaced form (`<source>__<name>`,
// `agw://<source>/…`) that is unique in the workspace, accepted under every policy and the one
// permission patterns match. A source under `never` or `auto` also offers the upstream's own name,
// which is exposed only when exactly one such claim exists among what the caller can see and the
// gateway does not reserve it. A name claimed twice is given to nobody: `auto` falls back to the
// canonical form, `never` leaves the item out and reports it. So adding a source can make a bare name
// disappear, never make it mean another source's item.
import type { PrefixPolicy } from '../config/index.js';

export interface NameClaim {
  readonly source: string;
  readonly policy: PrefixPolicy;
  /** The namespaced form, unique in the workspace. */
  readonly canonical: string;
  /** The upstream's own name; undefined when it can never be exposed bare (e.g. an agw:// URI). */
  readonly bare: string | undefined;
}

/** An item a `never` source could not expose (so nothing lists it under a bare name). */
export interface NameCollision {
  readonly source: string;
  readonly name: string;
  readonly reason: string;
}

export interface NameAssignment {
  /** The name each listed item is exposed under, by canonical name. Absent: left out of lists. */
  readonly exposed: ReadonlyMap<string, string>;
  /** The canonical item behind each bare exposed name. */
  readonly bareOwner: ReadonlyMap<string, string>;
  readonly collisions: readonly NameCollision[];
}

const NOTHING_RESERVED: ReadonlySet<string> = new Set();

export const CLAIMED_TWICE = 'another source the key can see exposes the same name';
export const RESERVED = "the name is one of the gateway's own tools";
export const NOT_BARE = 'the name cannot be exposed without its source prefix';

/** Assigns exposed names over one caller's view of one kind of item. Deterministic: the same claims
 * give the same names, whatever their order. */
export function assignNames(
  claims: readonly NameClaim[],
  reserved: ReadonlySet<string> = NOTHING_RESERVED,
): NameAssignment {
  const claimants = new Map<string, number>();
  for (const claim of claims)
    if (claim.policy !== 'always' && claim.bare !== undefined)
      claimants.set(claim.bare, (claimants.get(claim.bare) ?? 0) + 1);
  const exposed = new Map<string, string>();
  const bareOwner = new Map<string, string>();
  const collisions: NameCollision[] = [];
  for (const claim of claims) {
    if (claim.policy === 'always') {
      exposed.set(claim.canonical, claim.canonical);
      continue;
    }
    const bare = claim.bare;
    const problem =
      bare === undefined
        ? NOT_BARE
        : reserved.has(bare)
          ? RESERVED
          : (claimants.get(bare) ?? 0) > 1
            ? CLAIMED_TWICE
            : undefined;
    if (problem === undefined && bare !== undefined) {
      exposed.set(claim.canonical, bare);
      bareOwner.set(bare, claim.canonical);
    } else if (claim.policy === 'auto') {
      exposed.set(claim.canonical, claim.canonical);
    } else {
      collisions.push({ source: claim.source, name: bare ?? claim.canonical, reason: problem ?? NOT_BARE });
    }
  }
  collisions.sort((a, b) => (a.source + a.name < b.source + b.name ? -1 : 1));
  return { exposed, bareOwner, collisions };
}

/** Whether any source of the list exposes bare names (else every name is canonical: no lookups). */
export function anyBareNames(sources: readonly { readonly prefix: PrefixPolicy }[]): boolean {
  return sources.some((source) => source.prefix !== 'always');
}
