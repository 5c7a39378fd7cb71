// A REST API's HTTP answer as an MCP tool result (issue 44): 2xx JSON as structuredContent (an
// object; anything else wrapped as `{ result: … }`) plus its text, other text as text, small images
// as image content, other bytes as a note naming type and size (never raw bytes). Non-2xx answers
// are tool errors (`isError`) with the status and at most the first 2,000 characters of the body.
// Total: any input gives a result, never a throw.
import { STATUS_CODES } from 'node:http';
import { nestsDeeperThan } from '../platform/nesting-depth.js';

export interface HttpAnswer {
  readonly status: number;
  readonly contentType: string | undefined;
  readonly body: Buffer;
  /** The body was cut at the size cap. */
  readonly truncated: boolean;
}

export interface HttpResultOptions {
  /** The longest text content of a 2xx answer (default 100,000). */
  readonly maxTextChars?: number;
}

export const DEFAULT_MAX_TEXT_CHARS = 100_000;
/** How much of a non-2xx body the error shows. */
export const ERROR_BODY_CHARS = 2000;
/** The largest image sent as image content. */
export const MAX_IMAGE_BYTES = 1024 * 1024;
/** JSON nested deeper than this is shown as text only, never as structuredContent. */
export const MAX_STRUCTURED_DEPTH = 64;

type Content = Record<string, unknown>;
type Kind = 'json' | 'text' | 'image' | 'binary';

interface MediaType {
  /** Lower-case `type/subtype`, or `` when absent. */
  readonly essence: string;
  readonly charset: string | undefined;
}

function parseMediaType(contentType: string | undefined): MediaType {
  const [essence = '', ...params] = (contentType ?? '').slice(0, 1024).split(';');
  const charset = params
    .map((p) => p.trim().toLowerCase())
    .find((p) => p.startsWith('charset='))
    ?.slice('charset='.length)
    .replace(/^"|"$/g, '');
  return { essence: essence.trim().toLowerCase(), charset };
}

const TEXT_APPLICATIONS = new Set([
  'application/xml',
  'application/javascript',
  'application/ecmascript',
  'application/x-www-form-urlencoded',
  'application/yaml',
  'application/x-yaml',
  'application/graphql',
  'application/x-ndjson',
  'image/svg+xml',
]);
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

function kindOf(type: MediaType, body: Buffer): Kind {
  const { essence } = type;
  if (essence === 'application/json' || essence === 'text/json' || /^application\/[^/]+\+json$/.test(essence))
    return 'json';
  if (
    essence.startsWith('text/') ||
    TEXT_APPLICATIONS.has(essence) ||
    /^application\/[^/]+\+xml$/.test(essence)
  )
    return 'text';
  if (/^image\/[a-z0-9.+-]+$/.test(essence)) return 'image';
  if (essence !== '') return 'binary';
  // No type given: text when it is valid UTF-8 without NUL, else bytes.
  try {
    const text = STRICT_UTF8.decode(body);
    return text.includes('\u0000') ? 'binary' : 'text';
  } catch {
    return 'binary';
  }
}

/** The body as text in its charset (UTF-8 when absent or unknown); malformed bytes become U+FFFD. */
function decode(body: Buffer, charset: string | undefined): string {
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

/** `text` cut at `max` characters (never inside a surrogate pair), with a note saying so. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}\n… (cut at ${end.toLocaleString('en')} of ${text.length.toLocaleString('en')} characters)`;
}

const text = (value: string): Content => ({ type: 'text', text: value });

function sizeNote(type: MediaType, answer: HttpAnswer, what: string): string {
  const bytes = answer.body.length.toLocaleString('en');
  const cutNote = answer.truncated ? ', cut at the size cap' : '';
  const shownType = type.essence.slice(0, 100) || 'no content type';
  return `(${what}: ${shownType}, ${bytes} bytes${cutNote}, not shown)`;
}

const TRUNCATED_NOTE = '(the response was cut at the size cap)';

function parseJson(source: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(source) as unknown };
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function success(answer: HttpAnswer, maxTextChars: number): Record<string, unknown> {
  if (answer.body.length === 0) return { content: [text(`(no content) HTTP ${answer.status}`)] };
  const type = parseMediaType(answer.contentType);
  const kind = kindOf(type, answer.body);
  if (kind === 'image') {
    if (answer.body.length <= MAX_IMAGE_BYTES && !answer.truncated)
      return { content: [{ type: 'image', data: answer.body.toString('base64'), mimeType: type.essence }] };
    return { content: [text(sizeNote(type, answer, 'image'))] };
  }
  if (kind === 'binary') return { content: [text(sizeNote(type, answer, 'binary content'))] };
  const source = decode(answer.body, type.charset);
  const parsed = kind === 'json' && !answer.truncated ? parseJson(source) : undefined;
  if (parsed !== undefined && !nestsDeeperThan(parsed.value, MAX_STRUCTURED_DEPTH)) {
    const structuredContent = isObject(parsed.value) ? parsed.value : { result: parsed.value };
    return { content: [text(cut(JSON.stringify(parsed.value), maxTextChars))], structuredContent };
  }
  const body = cut(source, maxTextChars);
  return { content: [text(answer.truncated ? `${body}\n${TRUNCATED_NOTE}` : body)] };
}

/** At most ERROR_BODY_CHARS of an error body: JSON compacted, text as text, bytes as a note. */
function errorBody(answer: HttpAnswer): string | undefined {
  if (answer.body.length === 0) return undefined;
  const type = parseMediaType(answer.contentType);
  const kind = kindOf(type, answer.body);
  if (kind === 'image' || kind === 'binary') return sizeNote(type, answer, 'body');
  // Only what the error can show is decoded (a UTF-8 character is at most 4 bytes).
  const head = answer.body.subarray(0, ERROR_BODY_CHARS * 4);
  const source = decode(head, type.charset);
  const parsed = kind === 'json' && head.length === answer.body.length ? parseJson(source) : undefined;
  const shown =
    parsed === undefined || nestsDeeperThan(parsed.value, MAX_STRUCTURED_DEPTH)
      ? source
      : JSON.stringify(parsed.value);
  const body = cut(shown, ERROR_BODY_CHARS);
  return answer.truncated && body === shown ? `${body}\n${TRUNCATED_NOTE}` : body;
}

function failure(answer: HttpAnswer): Record<string, unknown> {
  const reason = STATUS_CODES[answer.status];
  const status = `HTTP ${answer.status}${reason === undefined ? '' : ` ${reason}`}`;
  const body = errorBody(answer);
  return { content: [text(body === undefined ? status : `${status}\n${body}`)], isError: true };
}

/** The MCP CallToolResult for an HTTP answer. */
export function httpToolResult(answer: HttpAnswer, options?: HttpResultOptions): Record<string, unknown> {
  const max = options?.maxTextChars;
  const maxTextChars = max !== undefined && Number.isInteger(max) && max > 0 ? max : DEFAULT_MAX_TEXT_CHARS;
  try {
    const ok = Number.isInteger(answer.status) && answer.status >= 200 && answer.status <= 299;
    return ok ? success(answer, maxTextChars) : failure(answer);
  } catch {
    // A JSON value too deep to write back, or a body that is not a Buffer: still an answer.
    const status = `HTTP ${String(answer.status)}`;
    return { content: [text(`${status} (the response could not be read)`)], isError: true };
  }
}
