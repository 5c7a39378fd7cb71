// What a document's `$ref`s expand to, measured before the parser dereferences and validates it
// (issue 44). The parser shares one object per ref target, but its validator walks every use, so a
// document whose refs fan out (ten refs to a schema of ten refs to …) costs exponential time there
// while its text stays small. This walk counts the bytes of the expansion and stops at the bound;
// a ref target measured without cutting a cycle above it is counted once and then reused, so the
// walk itself costs at most the bound.

import { isLocalRef, resolvePointer } from './json-pointer.js';

/** The expansion passed `maxBytes` or nested deeper than `maxDepth` (levels plus ref hops). */
export type ExpansionExcess = 'bytes' | 'depth';

interface Measured {
  readonly bytes: number;
  /** The lowest stack position of a ref this value cut as circular (Infinity when none). */
  readonly lowestCut: number;
}

class Excess extends Error {
  constructor(readonly excess: ExpansionExcess) {
    super(excess);
  }
}

/** Whether `document` with its local refs written out (a circular one left as a ref) exceeds a bound. */
export function expansionExcess(
  document: unknown,
  maxBytes: number,
  maxDepth: number,
): ExpansionExcess | undefined {
  const walk = new ExpansionWalk(document, maxBytes, maxDepth);
  try {
    walk.measure(document, 0);
    return undefined;
  } catch (error) {
    if (error instanceof Excess) return error.excess;
    throw error;
  }
}

class ExpansionWalk {
  private total = 0;
  private readonly known = new Map<string, number>();
  private readonly stack: string[] = [];
  private readonly onStack = new Map<string, number>();

  constructor(
    private readonly document: unknown,
    private readonly maxBytes: number,
    private readonly maxDepth: number,
  ) {}

  measure(node: unknown, depth: number): Measured {
    if (depth > this.maxDepth) throw new Excess('depth');
    if (typeof node !== 'object' || node === null) return this.count(leafBytes(node), Infinity);
    if (Array.isArray(node))
      return this.children(
        node.map((item) => ['', item] as const),
        depth,
        2,
      );
    const ref = Object.hasOwn(node, '$ref') ? (node as Record<string, unknown>).$ref : undefined;
    if (typeof ref === 'string' && isLocalRef(ref)) return this.reference(ref, depth);
    return this.children(Object.entries(node), depth, 2);
  }

  private reference(ref: string, depth: number): Measured {
    const position = this.onStack.get(ref);
    if (position !== undefined) return this.count(ref.length + 12, position);
    const known = this.known.get(ref);
    if (known !== undefined) return this.count(known, Infinity);
    const target = resolvePointer(this.document, ref);
    const here = this.stack.length;
    this.stack.push(ref);
    this.onStack.set(ref, here);
    const measured = this.measure(target, depth + 1);
    this.stack.pop();
    this.onStack.delete(ref);
    // Cuts of this ref itself or of refs below it happen the same way wherever the ref is used.
    if (measured.lowestCut >= here) this.known.set(ref, measured.bytes);
    return { bytes: measured.bytes, lowestCut: measured.lowestCut >= here ? Infinity : measured.lowestCut };
  }

  private children(entries: readonly (readonly [string, unknown])[], depth: number, frame: number): Measured {
    let bytes = this.count(frame + Math.max(0, entries.length - 1), Infinity).bytes;
    let lowestCut = Infinity;
    for (const [key, value] of entries) {
      if (key !== '') bytes += this.count(key.length + 3, Infinity).bytes;
      const measured = this.measure(value, depth + 1);
      bytes += measured.bytes;
      lowestCut = Math.min(lowestCut, measured.lowestCut);
    }
    return { bytes, lowestCut };
  }

  private count(bytes: number, lowestCut: number): Measured {
    this.total += bytes;
    if (this.total > this.maxBytes) throw new Excess('bytes');
    return { bytes, lowestCut };
  }
}

function leafBytes(value: unknown): number {
  if (typeof value === 'string') return value.length + 2;
  if (value === null || value === undefined) return 4;
  return JSON.stringify(value)?.length ?? 4;
}
