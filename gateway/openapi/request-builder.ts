// An OpenAPI tool call as its HTTP request (issue 44): the operation's path appended to the source's
// base URL with every path parameter confined to its segment, the query, header and cookie
// parameters by their styles, and the body. Pure: no I/O. The connection (reach guard, credentials,
// time-outs, size cap, breaker) sends what this builds; credentials are added there, after, so no
// argument can stand in for them. Only presence and shape are checked here, not the JSON Schema.
import type { BuiltRequest, OpenApiTool, OperationParameter } from './openapi-tool.js';
import { expandPath, expandQuery } from './parameter-style.js';
import { isDotSegment, percentEncode } from './percent-encoding.js';
import { encodeBody } from './request-body.js';
import { cookieHeader, cookiePair, headerEntry } from './request-headers.js';
import { InvalidToolArguments, isEmptyShape, shapeOf } from './tool-arguments.js';

export { InvalidToolArguments } from './tool-arguments.js';

/** The longest request URL we build. */
export const MAX_URL_CHARS = 8192;

export const ACCEPT = 'application/json, */*;q=0.5';

/** C0 controls and DEL: never part of a resource name, and servers that decode them misbehave. */
const CONTROL = /[\u0000-\u001f\u007f]/;
const METHOD = /^[A-Z]+$/;

interface Base {
  readonly origin: string;
  /** The base URL's path without trailing slashes (`` for the root). */
  readonly path: string;
}

function parseBase(baseUrl: string): Base {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new Error('the base URL is not an absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('the base URL is not http(s)');
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '')
    throw new Error('the base URL may not carry a query, a fragment or user information');
  return { origin: url.origin, path: url.pathname.replace(/\/+$/, '') };
}

/** The argument's value, with null read as absent. */
function argumentValue(args: Record<string, unknown> | undefined, argument: string): unknown {
  if (args === undefined || !Object.hasOwn(args, argument)) return undefined;
  return args[argument] ?? undefined;
}

function pathValue(parameter: OperationParameter, value: unknown): string {
  const { argument } = parameter;
  if (value === undefined)
    throw new InvalidToolArguments(`missing required argument '${argument}' (a path parameter)`);
  const shape = shapeOf(argument, value);
  if ((shape.kind === 'primitive' && shape.value === '') || isEmptyShape(shape))
    throw new InvalidToolArguments(`argument '${argument}' must not be empty (a path parameter)`);
  const texts =
    shape.kind === 'primitive' ? [shape.value] : shape.kind === 'array' ? shape.items : shape.entries.flat();
  if (texts.some((text) => CONTROL.test(text)))
    throw new InvalidToolArguments(
      `argument '${argument}' may not hold control characters (a path parameter)`,
    );
  // The value is checked itself too: `%2e%2e` goes out as `%252e%252e`, no dot segment to a URL
  // parser, but `..` to a server that decodes twice.
  if (shape.kind === 'primitive' && isDotSegment(shape.value))
    throw new InvalidToolArguments(`argument '${argument}' may not be a dot segment such as '.' or '..'`);
  return expandPath(parameter, shape);
}

/** The path template with its expressions filled, segment by segment; each segment checked. */
function buildPath(tool: OpenApiTool, args: Record<string, unknown> | undefined): string {
  const byName = new Map(tool.parameters.filter((p) => p.in === 'path').map((p) => [p.name, p]));
  if (!tool.pathTemplate.startsWith('/'))
    throw new Error(`path template of ${tool.name} does not start with /`);
  return tool.pathTemplate
    .split('/')
    .map((segment) => {
      const names: string[] = [];
      const built = segment
        .split(/(\{[^{}]*\})/)
        .map((part) => {
          if (!part.startsWith('{') || !part.endsWith('}')) return percentEncode(part, 'path-text');
          const parameter = byName.get(part.slice(1, -1));
          if (parameter === undefined)
            throw new Error(`path template of ${tool.name} names an unknown parameter`);
          names.push(parameter.argument);
          return pathValue(parameter, argumentValue(args, parameter.argument));
        })
        .join('');
      if (names.length > 0 && isDotSegment(built))
        throw new InvalidToolArguments(
          `arguments ${names.map((n) => `'${n}'`).join(', ')} would make a dot segment`,
        );
      return built;
    })
    .join('/');
}

function buildQuery(tool: OpenApiTool, args: Record<string, unknown> | undefined): string {
  const pairs: string[] = [];
  for (const parameter of tool.parameters) {
    if (parameter.in !== 'query') continue;
    const value = argumentValue(args, parameter.argument);
    if (value === undefined) {
      if (parameter.required)
        throw new InvalidToolArguments(`missing required argument '${parameter.argument}'`);
      continue;
    }
    const expanded = expandQuery(parameter, value);
    // An empty array or object is sent as `name=` (the style table's "undefined" column).
    pairs.push(
      ...(expanded.length > 0 || parameter.style === 'deepObject'
        ? expanded
        : [`${percentEncode(parameter.name)}=`]),
    );
  }
  return pairs.join('&');
}

function buildHeaders(tool: OpenApiTool, args: Record<string, unknown> | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (const parameter of tool.parameters) {
    if (parameter.in !== 'header' && parameter.in !== 'cookie') continue;
    const value = argumentValue(args, parameter.argument);
    if (value === undefined) {
      if (parameter.required)
        throw new InvalidToolArguments(`missing required argument '${parameter.argument}'`);
      continue;
    }
    const shape = shapeOf(parameter.argument, value);
    if (parameter.in === 'cookie') {
      const pair = cookiePair(parameter, shape);
      if (pair !== undefined) cookies.push(pair);
      continue;
    }
    const entry = headerEntry(parameter, shape);
    if (entry !== undefined) headers[entry[0]] = entry[1];
  }
  const cookie = cookieHeader(cookies);
  if (cookie !== undefined) headers.cookie = cookie;
  headers.accept = ACCEPT;
  return headers;
}

function segmentCount(path: string): number {
  return path.split('/').length;
}

/**
 * The HTTP request for a call of `tool` with `args`. Refuses what the caller got wrong with
 * InvalidToolArguments (safe to show); a plain Error means the tool or base URL is unusable.
 */
export function buildRequest(
  baseUrl: string,
  tool: OpenApiTool,
  args: Record<string, unknown> | undefined,
): BuiltRequest {
  if (!METHOD.test(tool.method)) throw new Error(`method of ${tool.name} is not an upper-case token`);
  const base = parseBase(baseUrl);
  const path = buildPath(tool, args);
  const query = buildQuery(tool, args);
  const headers = buildHeaders(tool, args);
  const href = `${base.origin}${base.path}${path}${query === '' ? '' : `?${query}`}`;
  if (href.length > MAX_URL_CHARS)
    throw new InvalidToolArguments(`the request URL would be longer than ${MAX_URL_CHARS} characters`);
  const url = new URL(href);
  // Defence in depth: the parser kept the path under the base path with the template's segments.
  if (
    url.origin !== base.origin ||
    !url.pathname.startsWith(`${base.path}/`) ||
    segmentCount(url.pathname) !== segmentCount(base.path) + segmentCount(tool.pathTemplate) - 1 ||
    url.href.length > MAX_URL_CHARS
  )
    throw new InvalidToolArguments('the arguments do not fit the path template');
  const body =
    tool.body === undefined ? undefined : encodeBody(tool.body, argumentValue(args, tool.body.argument));
  if (body === undefined) return { method: tool.method, url, headers };
  return {
    method: tool.method,
    url,
    headers: { ...headers, 'content-type': body.contentType },
    body: body.text,
  };
}
