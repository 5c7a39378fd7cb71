// Header values that mirror body fields (SEP-2243, docs/mcp-2026.md §2.4): decoding of the
// `=?base64?…?=` sentinel and comparison rules (integers compare numerically).
const SENTINEL = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/;

/** Decodes a mirrored header value; undefined when the sentinel's payload is not valid UTF-8 Base64. */
export function decodeMirroredValue(value: string): string | undefined {
  const match = SENTINEL.exec(value);
  if (match === null) return value;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(match[1] as string, 'base64'));
  } catch {
    return undefined;
  }
}

/** Encodes a value the way a client must put it in a mirrored header. */
export function encodeMirroredValue(value: string): string {
  const safe = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(value) && !value.startsWith('=?');
  return safe ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

/** Whether a header value mirrors a body value of type string, integer or boolean. */
export function mirrors(header: string, body: unknown): boolean {
  const decoded = decodeMirroredValue(header);
  if (decoded === undefined) return false;
  if (typeof body === 'string') return decoded === body;
  if (typeof body === 'boolean') return decoded === String(body);
  if (typeof body === 'number') return /^-?\d+(\.0+)?$/.test(decoded) && Number(decoded) === body;
  return false;
}

/** The mirrored header form of a body value, or undefined when the value is absent or null. */
export function headerValueFor(body: unknown): string | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return encodeMirroredValue(body);
  if (typeof body === 'number' || typeof body === 'boolean') return String(body);
  return undefined;
}
