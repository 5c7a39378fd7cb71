// The JSON Schemas of a tool's arguments, read from an OpenAPI document with its local `$ref`s written
// out (issue 44). Bounded per tool: schema nesting (`maxSchemaDepth`) and serialized size
// (`maxInputSchemaBytes`, counted as the schema is built, so a fan-out of refs stops at the bound);
// past either the operation is skipped, never the document. A circular ref is cut where it recurs:
// its place holds a permissive schema whose description names the ref. A ref target built without
// cutting a cycle above it is kept (frozen) and reused by every later use, in any tool.
// OpenAPI-only keywords become JSON Schema (3.0 `nullable`, boolean `exclusiveMinimum`, `example`);
// vendor extensions, `xml`, `externalDocs`, `discriminator` and base-URI keywords are dropped.

import { formatBytes, quoted, type DocumentLimits } from './document-limits.js';
import { isRecord } from '../platform/is-record.js';
import { refOf, resolvePointer } from './json-pointer.js';

/** Why an operation cannot become a tool. */
export class SkipOperation extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

/** What one tool's schemas have used of `maxInputSchemaBytes` so far (an estimate; checked exactly at the end). */
export interface SchemaBudget {
  bytes: number;
}

interface Built {
  readonly value: unknown;
  readonly bytes: number;
  /** Schema levels in `value` (a schema without subschemas is 1). */
  readonly height: number;
  /** The lowest stack position of a ref cut as circular inside (Infinity when none). */
  readonly lowestCut: number;
}

const SUBSCHEMA = new Set([
  'items', 'additionalProperties', 'not', 'contains', 'if', 'then', 'else', 'propertyNames',
  'unevaluatedItems', 'unevaluatedProperties', 'additionalItems', 'contentSchema',
]); // prettier-ignore
const SUBSCHEMA_MAP = new Set(['properties', 'patternProperties', 'dependentSchemas']);
const SUBSCHEMA_LIST = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const DROPPED = new Set([
  'xml', 'externalDocs', 'discriminator', 'nullable', 'example', '$id', '$schema', '$anchor',
  '$dynamicAnchor', '$dynamicRef', '$defs', 'definitions', '$comment',
]); // prettier-ignore

export class SchemaResolver {
  private readonly known = new Map<string, Built>();
  private readonly stack: string[] = [];
  private readonly onStack = new Map<string, number>();
  private budget: SchemaBudget = { bytes: 0 };

  constructor(
    private readonly document: unknown,
    private readonly version: '3.0' | '3.1',
    private readonly limits: DocumentLimits,
  ) {}

  /** A schema of the document, for a tool, at schema level `depth` (1: the tool's input schema). */
  resolve(node: unknown, depth: number, budget: SchemaBudget): Readonly<Record<string, unknown>> | boolean {
    this.budget = budget;
    const built = this.schema(node, depth);
    return built.value as Readonly<Record<string, unknown>> | boolean;
  }

  /** Document data (an `enum`, a `default`) copied as it is, counted against the budget. */
  copy(value: unknown): unknown {
    return this.data(value).value;
  }

  private schema(node: unknown, depth: number): Built {
    if (depth > this.limits.maxSchemaDepth)
      throw new SkipOperation(`its input schema nests deeper than ${this.limits.maxSchemaDepth} levels`);
    if (typeof node === 'boolean') return this.leaf(node, node ? 4 : 5);
    if (!isRecord(node)) return this.leaf(Object.freeze({}), 2);
    const ref = refOf(node);
    if (ref === undefined) return this.object(node, depth);
    const target = this.reference(ref, depth);
    const siblings = Object.keys(node).filter((key) => key !== '$ref');
    // 3.0 ignores the siblings of a $ref; 3.1 applies them too (written over the target's keywords).
    if (this.version === '3.0' || siblings.length === 0) return target;
    const rest = this.object(node, depth);
    if (typeof target.value === 'boolean' || typeof rest.value !== 'object') return target;
    return {
      value: Object.freeze(assign({}, target.value as object, rest.value as object)),
      bytes: target.bytes + rest.bytes,
      height: Math.max(target.height, rest.height),
      lowestCut: Math.min(target.lowestCut, rest.lowestCut),
    };
  }

  private reference(ref: string, depth: number): Built {
    const position = this.onStack.get(ref);
    if (position !== undefined) {
      const note = `Circular: the same schema as ${ref}, not written out again.`;
      return { ...this.leaf(Object.freeze({ description: note }), note.length + 20), lowestCut: position };
    }
    const known = this.known.get(ref);
    if (known !== undefined) {
      if (depth + known.height - 1 > this.limits.maxSchemaDepth)
        throw new SkipOperation(`its input schema nests deeper than ${this.limits.maxSchemaDepth} levels`);
      return this.leaf(known.value, known.bytes, known.height);
    }
    const target = resolvePointer(this.document, ref);
    if (target === undefined)
      throw new SkipOperation(`its schema refers to ${quoted(ref)}, which the document does not have`);
    const here = this.stack.length;
    this.stack.push(ref);
    this.onStack.set(ref, here);
    let built: Built;
    try {
      built = this.schema(target, depth);
    } finally {
      this.stack.pop();
      this.onStack.delete(ref);
    }
    // Cuts of this ref or of refs below it are the same wherever the ref is used: keep it.
    if (built.lowestCut < here) return built;
    const reusable = { ...built, lowestCut: Infinity };
    this.known.set(ref, reusable);
    return reusable;
  }

  private object(node: Record<string, unknown>, depth: number): Built {
    const out: Record<string, unknown> = {};
    let bytes = this.charge(2);
    let height = 1;
    let lowestCut = Infinity;
    const add = (key: string, built: Built): void => {
      put(out, key, built.value);
      bytes += built.bytes + this.charge(key.length + 4);
      height = Math.max(height, built.height);
      lowestCut = Math.min(lowestCut, built.lowestCut);
    };
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' || key.startsWith('x-') || DROPPED.has(key)) continue;
      if (SUBSCHEMA.has(key) && !Array.isArray(value)) add(key, this.child(value, depth));
      else if (SUBSCHEMA_LIST.has(key) || (key === 'items' && Array.isArray(value)))
        add(key, this.list(Array.isArray(value) ? value : [], depth));
      else if (SUBSCHEMA_MAP.has(key)) add(key, this.map(isRecord(value) ? value : {}, depth));
      else add(key, this.data(value));
    }
    for (const [key, built] of this.openApiKeywords(node, out)) add(key, built);
    return { value: Object.freeze(out), bytes, height, lowestCut };
  }

  private child(value: unknown, depth: number): Built {
    const built = this.schema(value, depth + 1);
    return { ...built, height: built.height + 1 };
  }

  private list(values: readonly unknown[], depth: number): Built {
    const children = values.map((value) => this.child(value, depth));
    return this.combine(Object.freeze(children.map((child) => child.value)), children);
  }

  private map(values: Record<string, unknown>, depth: number): Built {
    const out: Record<string, unknown> = {};
    const children: Built[] = [];
    for (const [key, value] of Object.entries(values)) {
      const child = this.child(value, depth);
      put(out, key, child.value);
      children.push({ ...child, bytes: child.bytes + this.charge(key.length + 4) });
    }
    return this.combine(Object.freeze(out), children);
  }

  /** The 3.0 keywords JSON Schema spells otherwise, in their JSON Schema form. */
  private openApiKeywords(node: Record<string, unknown>, out: Record<string, unknown>): [string, Built][] {
    const extra: [string, Built][] = [];
    if (Object.hasOwn(node, 'example') && !Object.hasOwn(node, 'examples'))
      extra.push(['examples', this.data([node.example])]);
    if (this.version === '3.1') return extra;
    for (const [bound, exclusive] of [
      ['minimum', 'exclusiveMinimum'],
      ['maximum', 'exclusiveMaximum'],
    ] as const) {
      if (typeof out[exclusive] !== 'boolean') continue;
      const limit = out[bound];
      const isExclusive = out[exclusive] === true && typeof limit === 'number';
      delete out[exclusive];
      if (isExclusive) {
        delete out[bound];
        extra.push([exclusive, this.leaf(limit, String(limit).length)]);
      }
    }
    if (node.nullable === true) {
      if (typeof out.type === 'string') out.type = Object.freeze([out.type, 'null']);
      if (Array.isArray(out.enum) && !out.enum.includes(null))
        out.enum = Object.freeze([...(out.enum as unknown[]), null]);
    }
    return extra;
  }

  private data(value: unknown): Built {
    if (typeof value !== 'object' || value === null) return this.leaf(value, leafBytes(value));
    if (Array.isArray(value)) {
      const items = value.map((item) => this.data(item));
      return this.combine(Object.freeze(items.map((item) => item.value)), items);
    }
    const out: Record<string, unknown> = {};
    const children: Built[] = [];
    for (const [key, item] of Object.entries(value)) {
      const built = this.data(item);
      put(out, key, built.value);
      children.push({ ...built, bytes: built.bytes + this.charge(key.length + 4) });
    }
    return this.combine(Object.freeze(out), children);
  }

  private leaf(value: unknown, bytes: number, height = 1): Built {
    this.charge(bytes);
    return { value, bytes, height, lowestCut: Infinity };
  }

  /** A built object or array from built children (whose bytes are charged already). */
  private combine(value: unknown, children: readonly Built[]): Built {
    let bytes = this.charge(2 + Math.max(0, children.length - 1));
    let height = 1;
    let lowestCut = Infinity;
    for (const child of children) {
      bytes += child.bytes;
      height = Math.max(height, child.height);
      lowestCut = Math.min(lowestCut, child.lowestCut);
    }
    return { value, bytes, height, lowestCut };
  }

  /** Counts `bytes` against the tool's budget; returns them. */
  private charge(bytes: number): number {
    this.budget.bytes += bytes;
    if (this.budget.bytes > this.limits.maxInputSchemaBytes)
      throw new SkipOperation(
        `its input schema is larger than ${formatBytes(this.limits.maxInputSchemaBytes)}`,
      );
    return bytes;
  }
}

function leafBytes(value: unknown): number {
  if (typeof value === 'string') return value.length + 2;
  if (value === null || value === undefined) return 4;
  return JSON.stringify(value)?.length ?? 4;
}

/** Sets an own property, `__proto__` included, without ever touching a prototype. */
export function put(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function assign(target: Record<string, unknown>, ...sources: object[]): Record<string, unknown> {
  for (const source of sources) for (const [key, value] of Object.entries(source)) put(target, key, value);
  return target;
}
