// Parameter serialisation by `style` and `explode` (issue 44; OpenAPI 3.1.1 §4.8.12.4 "Style
// Values" and the "Style Examples" table, RFC 6570 §3.2): path (simple, label, matrix), query (form,
// spaceDelimited, pipeDelimited, deepObject) and header (simple). Every value and object key is
// percent-encoded here; only the style's own delimiters are written bare. Header values are not
// percent-encoded (OpenAPI Appendix D): request-headers.ts checks their characters instead.
import type { OperationParameter } from './openapi-tool.js';
import { percentEncode } from './percent-encoding.js';
import type { EncodeSet } from './percent-encoding.js';
import type { ShapedValue } from './tool-arguments.js';
import { InvalidToolArguments, isPlainObject, primitiveText, shapeOf } from './tool-arguments.js';

/** How deeply a deepObject query value may nest (`a[b][c]…`). */
export const MAX_DEEP_OBJECT_DEPTH = 8;

const enc = (text: string): string => percentEncode(text);

/** The parts of a shaped value, each encoded, in the order the style tables write them. */
function flatParts(
  shape: ShapedValue,
  encode: (text: string) => string,
  explode: boolean,
  pair: string,
): string[] {
  if (shape.kind === 'primitive') return [encode(shape.value)];
  if (shape.kind === 'array') return shape.items.map(encode);
  return shape.entries.flatMap(([key, value]) =>
    explode ? [`${enc(key)}${pair}${encode(value)}`] : [enc(key), encode(value)],
  );
}

/** One path parameter's expansion (the text that replaces `{name}`). */
export function expandPath(parameter: OperationParameter, shape: ShapedValue): string {
  const { name, explode } = parameter;
  switch (parameter.style) {
    case 'label':
      return `.${flatParts(shape, enc, explode, '=').join(explode ? '.' : ',')}`;
    case 'matrix': {
      if (shape.kind === 'object' && explode)
        return shape.entries
          .map(([key, value]) => `;${enc(key)}${value === '' ? '' : `=${enc(value)}`}`)
          .join('');
      if (shape.kind === 'array' && explode)
        return shape.items.map((item) => `;${enc(name)}${item === '' ? '' : `=${enc(item)}`}`).join('');
      const joined = flatParts(shape, enc, false, '=').join(',');
      return `;${enc(name)}${joined === '' ? '' : `=${joined}`}`;
    }
    case 'simple':
      return flatParts(shape, enc, explode, '=').join(',');
    default:
      throw new Error(`path parameter ${name}: style ${parameter.style} is not a path style`);
  }
}

/** One query parameter's `key=value` pairs, each already encoded (empty when nothing is sent). */
export function expandQuery(parameter: OperationParameter, value: unknown): string[] {
  const { name, explode, style } = parameter;
  const valueSet: EncodeSet = parameter.allowReserved ? 'query-reserved' : 'unreserved';
  const encodeValue = (text: string): string => percentEncode(text, valueSet);
  if (style === 'deepObject') return deepObjectPairs(parameter.argument, enc(name), value, 1, encodeValue);
  const shape = shapeOf(parameter.argument, value);
  if (style !== 'form' && style !== 'spaceDelimited' && style !== 'pipeDelimited')
    throw new Error(`query parameter ${name}: style ${style} is not a query style`);
  if (explode && shape.kind === 'array')
    return shape.items.map((item) => `${enc(name)}=${encodeValue(item)}`);
  if (explode && shape.kind === 'object')
    return shape.entries.map(([key, item]) => `${enc(key)}=${encodeValue(item)}`);
  const separator = style === 'spaceDelimited' ? '%20' : style === 'pipeDelimited' ? '%7C' : ',';
  return [`${enc(name)}=${flatParts(shape, encodeValue, false, '=').join(separator)}`];
}

/**
 * deepObject: `name[key]=value` for each property (brackets encoded, as the style table writes
 * them); a nested object nests the brackets (`name[a][b]=v`), an array of primitives repeats the key
 * (`name[tags]=a&name[tags]=b`, as form-exploded arrays do); null properties are not sent. OpenAPI
 * leaves nesting undefined; this is our choice (docs/decisions.md).
 */
function deepObjectPairs(
  argument: string,
  prefix: string,
  value: unknown,
  depth: number,
  encodeValue: (text: string) => string,
): string[] {
  if (!isPlainObject(value)) throw new InvalidToolArguments(`argument '${argument}' must be an object`);
  if (depth > MAX_DEEP_OBJECT_DEPTH)
    throw new InvalidToolArguments(
      `argument '${argument}' nests deeper than ${MAX_DEEP_OBJECT_DEPTH} levels`,
    );
  const pairs: string[] = [];
  for (const [key, item] of Object.entries(value)) {
    if (item === null || item === undefined) continue;
    const itemKey = `${prefix}%5B${enc(key)}%5D`;
    if (isPlainObject(item)) {
      pairs.push(...deepObjectPairs(argument, itemKey, item, depth + 1, encodeValue));
      continue;
    }
    const items: readonly unknown[] = Array.isArray(item) ? item : [item];
    for (const element of items) {
      const text = primitiveText(element);
      if (text === undefined)
        throw new InvalidToolArguments(
          `argument '${argument}': arrays in an object may hold only strings, numbers or booleans`,
        );
      pairs.push(`${itemKey}=${encodeValue(text)}`);
    }
  }
  return pairs;
}

/** A header parameter's value (simple style), not percent-encoded. */
export function expandHeader(parameter: OperationParameter, shape: ShapedValue): string {
  return flatParts(shape, (text) => text, parameter.explode, '=').join(',');
}

/**
 * A cookie parameter's value: form style without explode (`a,b,c`, `R,100,G,200`) whatever the
 * document says, since an exploded form (`color=a&color=b`) is not a valid cookie; values are
 * percent-encoded, so `;` `,` `"` and spaces cannot break the Cookie header.
 */
export function expandCookie(shape: ShapedValue): string {
  if (shape.kind === 'primitive') return enc(shape.value);
  if (shape.kind === 'array') return shape.items.map(enc).join(',');
  return shape.entries.flatMap(([key, value]) => [enc(key), enc(value)]).join(',');
}
