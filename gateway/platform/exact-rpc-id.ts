// JSON-RPC ids must come back exactly as they were sent (issue 28.3): JSON.parse turns
// 123456789012345678901234567890 into 1.2345678901234568e+29 and 9007199254741925 into …924, so an
// answer would carry an id the client never sent. An id is echoed only when the number we hold
// prints as the text the client wrote; anything else is refused as an invalid request (id null).
// The source text is read with JSON.parse's reviver context, which costs ~10x a plain parse, so it
// is read only when the id is a number that could differ: always for non-integers and integers
// beyond 2^53, and for bodies up to 64 KiB otherwise (a safe integer written as 1.0 or
// 1.00000000000000001 is the only case left unread in a larger body).
const FULL_CHECK_LIMIT = 64 * 1024;

interface ReviverContext {
  readonly source?: string;
}

/** The text of the top-level `id` member, when it is a number. */
function idSource(text: string): string | undefined {
  const sources = new WeakMap<object, string>();
  const body = JSON.parse(text, function (
    this: unknown,
    key: string,
    value: unknown,
    context?: ReviverContext,
  ) {
    if (
      key === 'id' &&
      typeof value === 'number' &&
      context?.source !== undefined &&
      typeof this === 'object' &&
      this !== null
    )
      sources.set(this, context.source);
    return value;
  } as (this: unknown, key: string, value: unknown) => unknown) as unknown;
  return typeof body === 'object' && body !== null ? sources.get(body) : undefined;
}

const ID_KEY = '"id"';
/** After `"id"`: a colon (a key), then an integer's text ending where a number would. */
const KEY_COLON = /\s*:/y;
const INTEGER_VALUE = /\s*:\s*(-?\d+)(?![\d.eE])/y;

/**
 * The text of the top-level `id` when it can be read without a second parse, else undefined. Only
 * for a body with no backslash: then every `"` bounds a string, a key can be written `"id"` only
 * one way, and a string cannot hold a quote. If that body has exactly one key `"id"`, it is the
 * top-level one the parsed body's numeric id came from.
 */
function plainIdSource(text: string): string | undefined {
  if (text.includes('\\')) return undefined;
  let found: string | undefined;
  for (let at = text.indexOf(ID_KEY); at >= 0; at = text.indexOf(ID_KEY, at + ID_KEY.length)) {
    KEY_COLON.lastIndex = at + ID_KEY.length;
    if (!KEY_COLON.test(text)) continue;
    // A second key named id (nested or repeated), or a value not written as a plain integer: the
    // full read decides.
    if (found !== undefined) return undefined;
    INTEGER_VALUE.lastIndex = at + ID_KEY.length;
    const value = INTEGER_VALUE.exec(text);
    if (value === null) return undefined;
    found = value[1];
  }
  return found;
}

/** Whether the parsed body's id (if a number) prints exactly as it was written in `text`;
 * 'unreadable' when the body nests too deeply to read the id's text (it must then not be echoed). */
export function idEchoesExactly(text: string, body: unknown): boolean | 'unreadable' {
  if (typeof body !== 'object' || body === null) return true;
  const id = (body as { id?: unknown }).id;
  if (typeof id !== 'number') return true;
  if (!Number.isFinite(id)) return false;
  // -0 prints as 0: never the text that was sent.
  if (Object.is(id, -0)) return false;
  if (Number.isSafeInteger(id)) {
    if (text.length > FULL_CHECK_LIMIT) return true;
    const plain = plainIdSource(text);
    if (plain !== undefined) return JSON.stringify(id) === plain;
  }
  let source: string | undefined;
  try {
    source = idSource(text);
  } catch {
    // The reviver recurses: a body nested past the stack cannot be read this way. Its params are
    // refused by the depth rung anyway, and that answer carries id null rather than a guess.
    return 'unreadable';
  }
  return source === undefined || JSON.stringify(id) === source;
}
