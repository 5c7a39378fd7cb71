// What a call's arguments may be where a parameter is serialised (issue 44): a primitive, an array of
// primitives or a flat object of them, checked by shape only (no JSON Schema validation here). A
// refusal is an InvalidToolArguments whose message names the argument and never echoes its value,
// so it is safe to show the caller.

export class InvalidToolArguments extends Error {
  override readonly name = 'InvalidToolArguments';
}

export type Primitive = string | number | boolean;

/** A parameter value by shape: what the OpenAPI style tables call `string`, `array` and `object`. */
export type ShapedValue =
  | { readonly kind: 'primitive'; readonly value: string }
  | { readonly kind: 'array'; readonly items: readonly string[] }
  | { readonly kind: 'object'; readonly entries: readonly (readonly [string, string])[] };

/** A JSON primitive as JSON writes it (`true`, `12.5`), or undefined when `value` is not one. */
export function primitiveText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number' && Number.isFinite(value)) return JSON.stringify(value);
  return undefined;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * `value` (present, not null) by shape. Array items must be primitives; object properties must be
 * primitives, and a null property counts as absent (a model often writes null for "not given").
 */
export function shapeOf(argument: string, value: unknown): ShapedValue {
  const text = primitiveText(value);
  if (text !== undefined) return { kind: 'primitive', value: text };
  if (Array.isArray(value)) {
    const items = (value as readonly unknown[]).map((item) => {
      const itemText = primitiveText(item);
      if (itemText === undefined)
        throw new InvalidToolArguments(
          `argument '${argument}': array items must be strings, numbers or booleans`,
        );
      return itemText;
    });
    return { kind: 'array', items };
  }
  if (isPlainObject(value)) {
    const entries: (readonly [string, string])[] = [];
    for (const [key, item] of Object.entries(value)) {
      if (item === null || item === undefined) continue;
      const itemText = primitiveText(item);
      if (itemText === undefined)
        throw new InvalidToolArguments(
          `argument '${argument}': object properties must be strings, numbers or booleans`,
        );
      entries.push([key, itemText]);
    }
    return { kind: 'object', entries };
  }
  throw new InvalidToolArguments(
    `argument '${argument}' must be a string, number, boolean, array or object of them`,
  );
}

/** Whether the shaped value carries nothing (an empty array or object). Empty strings are values. */
export function isEmptyShape(shape: ShapedValue): boolean {
  return (
    (shape.kind === 'array' && shape.items.length === 0) ||
    (shape.kind === 'object' && shape.entries.length === 0)
  );
}
