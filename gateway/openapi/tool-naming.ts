// Tool names for a document's operations (issue 44): the `operationId` with every character outside
// [A-Za-z0-9_-] as `_`, else `<method>_<path words>` (`get_pets_petId`), at most 64 characters.
// Names are given over the whole document (before any filter or skip), in path-then-method order,
// so a tool keeps its name when the filter or another operation changes. A name two operations share
// stays with the first; the others get `_2`, `_3`, … (never a name another operation has itself).

export const MAX_TOOL_NAME = 64;

export interface NamedOperation {
  readonly method: string;
  readonly path: string;
  readonly operationId?: string | undefined;
}

/** One name per operation, in the order given. */
export function toolNames(operations: readonly NamedOperation[]): string[] {
  const wanted = operations.map(wantedName);
  const counts = new Map<string, number>();
  for (const name of wanted) counts.set(name, (counts.get(name) ?? 0) + 1);
  const taken = new Set(wanted.filter((name) => counts.get(name) === 1));
  return wanted.map((name) => {
    if (counts.get(name) === 1) return name;
    if (!taken.has(name)) {
      taken.add(name);
      return name;
    }
    for (let suffix = 2; ; suffix++) {
      const tail = `_${suffix}`;
      const candidate = name.slice(0, MAX_TOOL_NAME - tail.length) + tail;
      if (!taken.has(candidate)) {
        taken.add(candidate);
        return candidate;
      }
    }
  });
}

function wantedName(operation: NamedOperation): string {
  const fromId = (operation.operationId ?? '').replace(/[^A-Za-z0-9_-]/g, '_');
  if (/[A-Za-z0-9]/.test(fromId)) return fromId.slice(0, MAX_TOOL_NAME);
  const words = operation.path.split(/[^A-Za-z0-9]+/).filter((word) => word !== '');
  return [operation.method.toLowerCase(), ...words].join('_').slice(0, MAX_TOOL_NAME);
}
