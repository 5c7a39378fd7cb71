// Text at the REST boundary is well-formed Unicode (issue 8 item 5): an unpaired UTF-16 surrogate,
// whether a client sent it (`"\ud800"` in a JSON body) or an upstream did (a tool description), is
// replaced with U+FFFD, so no input can make an encoder throw or a client's UTF-8 decoder choke.

/** `value` with every string (keys included) made well-formed; the same object when nothing had
 * to change, so the common case allocates nothing. */
export function wellFormed<T>(value: T): T {
  return fix(value, 0) as T;
}

const MAX_DEPTH = 256;

function fix(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return value.isWellFormed() ? value : value.toWellFormed();
  if (typeof value !== 'object' || value === null || depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) {
    const items: readonly unknown[] = value;
    let copy: unknown[] | undefined;
    items.forEach((item, index) => {
      const fixed = fix(item, depth + 1);
      if (fixed !== item) {
        copy ??= [...items];
        copy[index] = fixed;
      }
    });
    return copy ?? value;
  }
  if (!isPlainObject(value)) return value;
  let copy: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(value)) {
    const fixedKey = key.isWellFormed() ? key : key.toWellFormed();
    const fixed = fix(item, depth + 1);
    if (fixed !== item || fixedKey !== key) {
      copy ??= { ...value };
      if (fixedKey !== key) delete copy[key];
      Object.defineProperty(copy, fixedKey, {
        value: fixed,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return copy ?? value;
}

function isPlainObject(value: object): value is Record<string, unknown> {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}
