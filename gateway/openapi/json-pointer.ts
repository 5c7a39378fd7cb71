// Local `$ref`s of an OpenAPI document (`#/components/schemas/Pet`), looked up by own properties only:
// a pointer can never reach `Object.prototype` (`#/__proto__`, `#/constructor`), and a ref that is not
// local is never followed here (document-reading.ts refuses documents that have one).

/** Whether `ref` points inside the document (`#` or `#/…`). */
export function isLocalRef(ref: string): boolean {
  return ref.startsWith('#');
}

/** The value `ref` points at in `document`, or undefined when it points at nothing. */
export function resolvePointer(document: unknown, ref: string): unknown {
  if (!isLocalRef(ref)) return undefined;
  let fragment: string;
  try {
    fragment = decodeURIComponent(ref.slice(1));
  } catch {
    return undefined;
  }
  if (fragment === '') return document;
  if (!fragment.startsWith('/')) return undefined;
  let current: unknown = document;
  for (const raw of fragment.slice(1).split('/')) {
    const token = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (typeof current !== 'object' || current === null) return undefined;
    if (Array.isArray(current)) {
      if (!/^(0|[1-9][0-9]*)$/.test(token)) return undefined;
      current = current[Number(token)];
    } else {
      if (!Object.hasOwn(current, token)) return undefined;
      current = (current as Record<string, unknown>)[token];
    }
  }
  return current;
}

/** A plain object's own `$ref`, when it has a string one. */
export function refOf(node: unknown): string | undefined {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return undefined;
  if (!Object.hasOwn(node, '$ref')) return undefined;
  const ref = (node as Record<string, unknown>).$ref;
  return typeof ref === 'string' ? ref : undefined;
}

/** Follows a chain of refs (a Parameter or Path Item given by `$ref`) to the object it ends at. */
export function followRefs(document: unknown, node: unknown, maxHops = 16): unknown {
  let current = node;
  for (let hop = 0; hop <= maxHops; hop++) {
    const ref = refOf(current);
    if (ref === undefined) return current;
    current = resolvePointer(document, ref);
  }
  return undefined;
}

/** An own property of a document object (never one inherited from `Object.prototype`). */
export function own(node: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(node, key) ? node[key] : undefined;
}
