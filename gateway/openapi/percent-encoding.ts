// Percent-encoding of parameter values and template text (issue 44, RFC 3986 §2, RFC 6570 §3.2.1):
// a value is encoded byte by byte from its UTF-8 form, so `/`, `?`, `#`, `%`, `\` and every
// non-ASCII character (unicode dots included) become %XX and cannot change the URL's structure. The
// dot-segment test decides what the WHATWG URL parser (and a server that decodes and normalises
// once more) would read as `.` or `..`.

const UTF8 = new TextEncoder();
const HEX = '0123456789ABCDEF';

/** RFC 3986 unreserved characters: never encoded. */
const UNRESERVED = /^[A-Za-z0-9\-._~]$/;
/**
 * Reserved characters `allowReserved` lets through in a query value. Not `#` (ends the query), `[`
 * `]` (not allowed in a query), nor `&` `=` `+` (they would split the value into other query
 * parameters or change its meaning in a form query): OpenAPI 3.1.1 leaves those to the application.
 */
const QUERY_RESERVED = /^[:/?@!$'()*,;]$/;
/** What a path template's literal text may keep (RFC 3986 pchar and `/`); the rest is encoded. */
const PATH_TEXT = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/]$/;

export type EncodeSet = 'unreserved' | 'query-reserved' | 'path-text';

function keeps(set: EncodeSet, char: string): boolean {
  if (UNRESERVED.test(char)) return true;
  if (set === 'query-reserved') return QUERY_RESERVED.test(char);
  if (set === 'path-text') return PATH_TEXT.test(char);
  return false;
}

function isHex(byte: number | undefined): boolean {
  return (
    byte !== undefined &&
    ((byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66))
  );
}

/**
 * `text` percent-encoded: characters outside `set` become %XX of their UTF-8 bytes (a lone surrogate
 * is U+FFFD). With `query-reserved` and `path-text`, a `%` that starts a valid %XX triple is kept
 * (RFC 6570 reserved expansion); with `unreserved` every `%` is %25.
 */
export function percentEncode(text: string, set: EncodeSet = 'unreserved'): string {
  const bytes = UTF8.encode(text);
  let out = '';
  for (let i = 0; i < bytes.length; i += 1) {
    const byte = bytes[i] as number;
    if (byte < 0x80) {
      const char = String.fromCharCode(byte);
      if (keeps(set, char)) {
        out += char;
        continue;
      }
      if (char === '%' && set !== 'unreserved' && isHex(bytes[i + 1]) && isHex(bytes[i + 2])) {
        out += '%';
        continue;
      }
    }
    out += `%${HEX[byte >> 4]}${HEX[byte & 15]}`;
  }
  return out;
}

/** `%XX` decoded once, or undefined when it is not valid UTF-8 percent-encoding. */
function decodeOnce(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

const DOT = /^(?:\.|%2e)$/i;
const DOUBLE_DOT = /^(?:\.|%2e)(?:\.|%2e)$/i;
/** Dots and white space only (Windows file servers trim trailing dots and spaces: `.. ` is `..`). */
const DOTS_ONLY = /^[.\s]*\.[.\s]*$/;
/** How many rounds of decoding a server is assumed to apply at most. */
const DECODE_ROUNDS = 4;

function hasDotPiece(text: string): boolean {
  return text
    .normalize('NFKC')
    .split(/[/\\]/)
    .some((piece) => DOTS_ONLY.test(piece));
}

/**
 * Whether a built path segment is, or could become, a dot segment: as written (the WHATWG parser's
 * `.`, `%2e`, `.%2E`, …), or in a server that decodes it (up to four times), NFKC-normalises it
 * (U+2024 ONE DOT LEADER and U+FF0E FULLWIDTH FULL STOP read as `.`) and splits it at `/` or `\`: no
 * piece may then be made only of dots (and spaces). A value `a/b` passes (as `a%2Fb`); `../x`,
 * `..\x` or `%2e%2e` do not.
 */
export function isDotSegment(segment: string): boolean {
  if (DOT.test(segment) || DOUBLE_DOT.test(segment) || hasDotPiece(segment)) return true;
  let text = segment;
  for (let round = 0; round < DECODE_ROUNDS; round += 1) {
    const decoded = decodeOnce(text);
    if (decoded === undefined || decoded === text) return false;
    if (hasDotPiece(decoded)) return true;
    text = decoded;
  }
  return false;
}
