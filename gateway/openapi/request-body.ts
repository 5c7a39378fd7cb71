// The request body of an OpenAPI tool call (issue 44): JSON (`application/json` and `+json` types),
// `application/x-www-form-urlencoded` and `text/plain`. Form bodies follow the Encoding Object's
// defaults when the document gives no encoding: a primitive property as its text, an array of
// primitives as the repeated key, and an object (or an array holding one) as its JSON text
// (`contentType: application/json`, the default for objects). Bodies are bounded.
import type { OperationBody } from './openapi-tool.js';
import { InvalidToolArguments, isPlainObject, primitiveText } from './tool-arguments.js';

/** The longest body we build (the inbound request limit usually binds long before). */
export const MAX_BODY_CHARS = 8 * 1024 * 1024;

/** A media type as a header value may write it (no CR/LF, no controls). */
const MEDIA_TYPE = /^[A-Za-z0-9!#$&^_.+-]+\/[A-Za-z0-9!#$&^_.+-]+(?:\s*;[\x20-\x7e]*)?$/;

export interface EncodedBody {
  readonly contentType: string;
  readonly text: string;
}

function essence(mediaType: string): string {
  return (mediaType.split(';')[0] ?? '').trim().toLowerCase();
}

export function isJsonMediaType(mediaType: string): boolean {
  const type = essence(mediaType);
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

function formText(argument: string, value: unknown): string {
  if (!isPlainObject(value)) throw new InvalidToolArguments(`argument '${argument}' must be an object`);
  const form = new URLSearchParams();
  for (const [key, item] of Object.entries(value)) {
    if (item === null || item === undefined) continue;
    const text = primitiveText(item);
    if (text !== undefined) form.append(key, text);
    else if (Array.isArray(item) && item.every((element) => primitiveText(element) !== undefined))
      for (const element of item as unknown[]) form.append(key, primitiveText(element) as string);
    else form.append(key, JSON.stringify(item));
  }
  return form.toString();
}

function jsonText(argument: string, value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    throw new InvalidToolArguments(`argument '${argument}' cannot be written as JSON`);
  }
}

/** The encoded body, or undefined when none is given and none is required. */
export function encodeBody(body: OperationBody, value: unknown): EncodedBody | undefined {
  if (value === undefined || value === null) {
    if (body.required)
      throw new InvalidToolArguments(`missing required argument '${body.argument}' (the request body)`);
    return undefined;
  }
  if (!MEDIA_TYPE.test(body.mediaType))
    throw new Error(`request body media type is not a valid header value`);
  const type = essence(body.mediaType);
  let text: string;
  if (isJsonMediaType(type)) text = jsonText(body.argument, value);
  else if (type === 'application/x-www-form-urlencoded') text = formText(body.argument, value);
  else if (type === 'text/plain') {
    const plain = primitiveText(value);
    if (plain === undefined) throw new InvalidToolArguments(`argument '${body.argument}' must be a string`);
    text = plain;
  } else throw new Error(`request body media type ${type} is not supported`);
  if (text.length > MAX_BODY_CHARS)
    throw new InvalidToolArguments(`argument '${body.argument}' is larger than ${MAX_BODY_CHARS} characters`);
  return { contentType: body.mediaType, text };
}
