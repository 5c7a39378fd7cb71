// Header and cookie parameters of an OpenAPI tool call (issue 44). A tool argument never sets a
// header that carries credentials, frames the message or is hop-by-hop: such parameters are skipped,
// never sent and never an error (OpenAPI itself says Accept, Content-Type and Authorization header
// parameters SHALL be ignored; docs/decisions.md). Values are visible ASCII with inner spaces only,
// so CR, LF, NUL and other controls (header injection) are refused, and every value is bounded.
import { expandCookie, expandHeader } from './parameter-style.js';
import type { OperationParameter } from './openapi-tool.js';
import type { ShapedValue } from './tool-arguments.js';
import { InvalidToolArguments } from './tool-arguments.js';

/** The longest value of one header line we build (the Cookie line included). */
export const MAX_HEADER_VALUE_CHARS = 4096;

/** Header names a tool argument may never set (lower-case). */
const RESERVED_HEADERS = new Set([
  // Credentials: the gateway's credential port owns them; cookies come only from cookie parameters.
  'authorization',
  'proxy-authorization',
  'cookie',
  // Framing and routing of the message: set by the HTTP client from the URL and body.
  'host',
  'content-length',
  'transfer-encoding',
  'expect',
  // Hop-by-hop (RFC 9110 §7.6.1) and their old spellings.
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'upgrade',
  'proxy-authenticate',
  // Set by the builder itself (and ignored by OpenAPI when declared as parameters).
  'accept',
  'content-type',
  // What proxies say about the client: an argument must not spoof them.
  'forwarded',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-real-ip',
  'via',
  // Trace context is the gateway's (telemetry), never a caller's argument.
  'traceparent',
  'tracestate',
  'baggage',
]);

/** An RFC 9110 token (a header or cookie name). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Visible ASCII, with spaces and tabs inside only. */
const FIELD_VALUE = /^(?:[\x21-\x7e](?:[\x20-\x7e\t]*[\x21-\x7e])?)?$/;

/** Whether a header parameter named `name` is left out of the request (see RESERVED_HEADERS). */
export function isReservedHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return (
    RESERVED_HEADERS.has(lower) || !TOKEN.test(name) || lower.startsWith('proxy-') || lower.startsWith('sec-')
  );
}

function checkedValue(argument: string, value: string): string {
  if (value.length > MAX_HEADER_VALUE_CHARS)
    throw new InvalidToolArguments(
      `argument '${argument}' is longer than ${MAX_HEADER_VALUE_CHARS} characters`,
    );
  if (!FIELD_VALUE.test(value))
    throw new InvalidToolArguments(
      `argument '${argument}' may hold only visible ASCII characters and inner spaces in a header`,
    );
  return value;
}

/** The header a header parameter sets (simple style), or undefined when the name is reserved. */
export function headerEntry(parameter: OperationParameter, shape: ShapedValue): [string, string] | undefined {
  if (isReservedHeader(parameter.name)) return undefined;
  return [parameter.name.toLowerCase(), checkedValue(parameter.argument, expandHeader(parameter, shape))];
}

/** One `name=value` pair of the Cookie header, or undefined when the cookie name is not a token. */
export function cookiePair(parameter: OperationParameter, shape: ShapedValue): string | undefined {
  if (!TOKEN.test(parameter.name)) return undefined;
  return `${parameter.name}=${expandCookie(shape)}`;
}

/** The Cookie header from its pairs, bounded. */
export function cookieHeader(pairs: readonly string[]): string | undefined {
  if (pairs.length === 0) return undefined;
  const value = pairs.join('; ');
  if (value.length > MAX_HEADER_VALUE_CHARS)
    throw new InvalidToolArguments(
      `the cookie parameters are longer than ${MAX_HEADER_VALUE_CHARS} characters`,
    );
  return value;
}
