// One operation of an OpenAPI document as a tool (issue 44): its parameters (path-level and
// operation-level merged, the operation's winning), their styles with OpenAPI's defaults, the one
// request body media type a call sends, and the input schema that carries them: one property per
// parameter, named uniquely across locations, and `body`. An operation that cannot be called as a
// tool throws SkipOperation with the reason.

import { quoted } from './document-limits.js';
import { isRecord } from '../platform/is-record.js';
import { followRefs, own } from './json-pointer.js';
import type { OpenApiTool, OperationBody, OperationParameter, ParameterLocation } from './openapi-tool.js';
import { put, SkipOperation, type SchemaBudget, type SchemaResolver } from './schema-resolver.js';

export const BODY_ARGUMENT = 'body';
const MAX_DESCRIPTION = 1000;
const MAX_TITLE = 200;
const MAX_ARGUMENT = 64;
const LOCATIONS: readonly ParameterLocation[] = ['path', 'query', 'header', 'cookie'];
const STYLES: Readonly<Record<ParameterLocation, readonly string[]>> = {
  path: ['simple', 'label', 'matrix'],
  query: ['form', 'spaceDelimited', 'pipeDelimited', 'deepObject'],
  header: ['simple'],
  cookie: ['form'],
};
const DEFAULT_STYLE: Readonly<Record<ParameterLocation, string>> = {
  path: 'simple',
  query: 'form',
  header: 'simple',
  cookie: 'form',
};
/** OpenAPI: header parameters with these names SHALL be ignored (the gateway sets them). */
const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization']);
/** Headers a caller must never set: they frame the request or belong to the connection. */
const FORBIDDEN_HEADERS = new Set([
  'host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer',
  'expect', 'proxy-authorization', 'proxy-connection', 'cookie',
]); // prettier-ignore
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface DocumentOperation {
  readonly path: string;
  /** Lower-case, as the document's key. */
  readonly method: string;
  readonly operation: Record<string, unknown>;
  readonly pathItem: Record<string, unknown>;
}

interface RawParameter {
  readonly name: string;
  readonly in: ParameterLocation;
  readonly node: Record<string, unknown>;
}

export function operationTool(
  document: unknown,
  entry: DocumentOperation,
  name: string,
  resolver: SchemaResolver,
  maxInputSchemaBytes: number,
  readOnly: boolean | undefined,
): OpenApiTool {
  const budget: SchemaBudget = { bytes: 0 };
  const raw = mergedParameters(document, entry);
  const bodyNode = followRefs(document, own(entry.operation, 'requestBody'));
  const body = requestBody(bodyNode);
  const argumentNames = argumentsFor(raw, body !== undefined);
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  const parameters: OperationParameter[] = [];
  for (const parameter of raw) {
    const argument = argumentNames.get(parameter) as string;
    const built = toParameter(parameter, argument, resolver, budget);
    parameters.push(built.parameter);
    put(properties, argument, built.property);
    if (built.parameter.required) required.push(argument);
  }
  let operationBody: OperationBody | undefined;
  if (body !== undefined) {
    const schema = resolver.resolve(body.schema, 2, budget);
    put(properties, BODY_ARGUMENT, described(schema, body.description));
    if (body.required) required.push(BODY_ARGUMENT);
    operationBody = Object.freeze({
      mediaType: body.mediaType,
      required: body.required,
      argument: BODY_ARGUMENT,
    });
  }
  const inputSchema: Record<string, unknown> = { type: 'object', properties: Object.freeze(properties) };
  if (required.length > 0) inputSchema.required = Object.freeze(required);
  inputSchema.additionalProperties = false;
  const bytes = Buffer.byteLength(JSON.stringify(inputSchema), 'utf8');
  if (bytes > maxInputSchemaBytes)
    throw new SkipOperation(`its input schema is ${bytes} bytes; the limit is ${maxInputSchemaBytes}`);
  const method = entry.method.toUpperCase();
  const summary = text(own(entry.operation, 'summary'));
  const annotations: Record<string, unknown> = { readOnlyHint: readOnly ?? READ_METHODS.has(method) };
  if (summary !== '') annotations.title = bounded(summary, MAX_TITLE);
  const tool: OpenApiTool = {
    name,
    description: toolDescription(entry, method, summary),
    inputSchema: Object.freeze(inputSchema),
    annotations: Object.freeze(annotations),
    method,
    pathTemplate: entry.path,
    parameters: Object.freeze(parameters),
    ...(operationBody === undefined ? {} : { body: operationBody }),
  };
  return tool;
}

/** Path-level then operation-level parameters; one (name, in) pair each, the operation's winning. */
function mergedParameters(document: unknown, entry: DocumentOperation): RawParameter[] {
  const merged = new Map<string, RawParameter>();
  for (const list of [own(entry.pathItem, 'parameters'), own(entry.operation, 'parameters')]) {
    if (!Array.isArray(list)) continue;
    for (const item of list) {
      const node = followRefs(document, item);
      if (!isRecord(node))
        throw new SkipOperation('one of its parameters refers to nothing the document has');
      const name = own(node, 'name');
      const location = own(node, 'in');
      if (typeof name !== 'string' || !LOCATIONS.includes(location as ParameterLocation))
        throw new SkipOperation('one of its parameters has no name or location');
      const parameter: RawParameter = { name, in: location as ParameterLocation, node };
      if (parameter.in === 'header' && IGNORED_HEADERS.has(name.toLowerCase())) continue;
      merged.set(`${parameter.in}\u0000${parameter.name}`, parameter);
    }
  }
  const parameters = [...merged.values()];
  for (const placeholder of entry.path.matchAll(/\{([^}]*)\}/g)) {
    const wanted = placeholder[1] ?? '';
    if (!parameters.some((p) => p.in === 'path' && p.name === wanted))
      throw new SkipOperation(`its path has {${wanted}} but no path parameter of that name`);
  }
  return parameters;
}

/**
 * Argument names: the parameter's name with characters outside [A-Za-z0-9_.-] as `_`; path
 * parameters choose first, then query, header, cookie; a name already taken (or `body`, when the
 * operation has one) gets its location as a prefix (`header_id`), then a number.
 */
function argumentsFor(parameters: readonly RawParameter[], hasBody: boolean): Map<RawParameter, string> {
  const taken = new Set<string>(hasBody ? [BODY_ARGUMENT] : []);
  const names = new Map<RawParameter, string>();
  for (const location of LOCATIONS)
    for (const parameter of parameters.filter((p) => p.in === location)) {
      const plain = parameter.name.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, MAX_ARGUMENT) || 'argument';
      let candidate = plain;
      if (taken.has(candidate)) candidate = `${location}_${plain}`.slice(0, MAX_ARGUMENT);
      for (let n = 2; taken.has(candidate); n++)
        candidate = `${location}_${plain}`.slice(0, MAX_ARGUMENT - 4) + `_${n}`;
      taken.add(candidate);
      names.set(parameter, candidate);
    }
  return names;
}

function toParameter(
  raw: RawParameter,
  argument: string,
  resolver: SchemaResolver,
  budget: SchemaBudget,
): { parameter: OperationParameter; property: unknown } {
  const { node, name } = raw;
  const label = `its ${raw.in} parameter ${quoted(name, 60)}`;
  if ((raw.in === 'header' || raw.in === 'cookie') && !TOKEN.test(name))
    throw new SkipOperation(`${label} is not a valid ${raw.in} name`);
  if (raw.in === 'header' && FORBIDDEN_HEADERS.has(name.toLowerCase()))
    throw new SkipOperation(`${label} is a header the gateway sets itself`);
  if (own(node, 'schema') === undefined && own(node, 'content') !== undefined)
    throw new SkipOperation(`${label} is described by \`content\` (a media type), which calls do not send`);
  const style = own(node, 'style') ?? DEFAULT_STYLE[raw.in];
  if (typeof style !== 'string' || !STYLES[raw.in].includes(style))
    throw new SkipOperation(
      `${label} has the style ${quoted(typeof style === 'string' ? style : (JSON.stringify(style) ?? ''), 30)}, which calls do not send`,
    );
  const explode = own(node, 'explode');
  const schema = resolver.resolve(own(node, 'schema') ?? {}, 2, budget);
  const parameter: OperationParameter = Object.freeze({
    name,
    in: raw.in,
    required: raw.in === 'path' || own(node, 'required') === true,
    style,
    explode: typeof explode === 'boolean' ? explode : style === 'form',
    allowReserved: raw.in === 'query' && own(node, 'allowReserved') === true,
    schema: typeof schema === 'boolean' ? Object.freeze(schema ? {} : { not: {} }) : schema,
    argument,
  });
  const description = text(own(node, 'description'));
  const deprecated = own(node, 'deprecated') === true;
  return {
    parameter,
    property: described(schema, deprecated ? `Deprecated. ${description}`.trim() : description),
  };
}

interface ChosenBody {
  readonly mediaType: string;
  readonly required: boolean;
  readonly schema: unknown;
  readonly description: string;
}

/** The media type a call sends: JSON first (`+json` next), then a form, then plain text. */
function requestBody(node: unknown): ChosenBody | undefined {
  if (node === undefined) return undefined;
  if (!isRecord(node)) throw new SkipOperation('its request body refers to nothing the document has');
  const content = own(node, 'content');
  const types = isRecord(content) ? Object.keys(content) : [];
  if (types.length === 0) return undefined;
  const essence = (type: string): string => (type.split(';')[0] ?? '').trim().toLowerCase();
  const chosen =
    types.find((type) => essence(type) === 'application/json') ??
    types.find((type) => /^application\/[^/]+\+json$/.test(essence(type))) ??
    types.find((type) => essence(type) === 'application/x-www-form-urlencoded') ??
    types.find((type) => essence(type) === 'text/plain');
  if (chosen === undefined) {
    const listed = types
      .slice(0, 3)
      .map((type) => quoted(type, 60))
      .join(', ');
    throw new SkipOperation(
      `its request body is only ${listed}, which calls do not send (JSON, form or plain text)`,
    );
  }
  const media = (content as Record<string, unknown>)[chosen];
  const schema = isRecord(media) ? own(media, 'schema') : undefined;
  return {
    mediaType: chosen.trim(),
    required: own(node, 'required') === true,
    schema: schema ?? (essence(chosen) === 'text/plain' ? { type: 'string' } : {}),
    description: text(own(node, 'description')),
  };
}

/** A property's schema with the parameter's or body's description written over the schema's own. */
function described(schema: Readonly<Record<string, unknown>> | boolean, description: string): unknown {
  if (description === '') return schema;
  const base = typeof schema === 'boolean' ? (schema ? {} : { not: {} }) : schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(base)) put(out, key, value);
  out.description = bounded(description, MAX_DESCRIPTION);
  return Object.freeze(out);
}

function toolDescription(entry: DocumentOperation, method: string, summary: string): string {
  const parts = [summary, text(own(entry.operation, 'description'))].filter((part) => part !== '');
  if (own(entry.operation, 'deprecated') === true) parts.unshift('Deprecated.');
  const joined = parts.join('\n\n');
  return bounded(joined === '' ? `${method} ${entry.path}` : joined, MAX_DESCRIPTION);
}

function text(value: unknown): string {
  return typeof value === 'string' ? value.trim() : '';
}

function bounded(value: string, max: number): string {
  if (value.length <= max) return value;
  // Never end on the first half of a surrogate pair.
  const end = /[\uD800-\uDBFF]/.test(value.charAt(max - 2)) ? max - 2 : max - 1;
  return `${value.slice(0, end)}…`;
}
