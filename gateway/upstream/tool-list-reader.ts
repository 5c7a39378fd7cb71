// Reads one page of an upstream's tools/list answer liberally (issue 37.11), on every path that lists
// tools (the 2026 relay and the SDK client for 2025-era and stdio upstreams): deviations published
// servers make whose meaning is unambiguous are normalised before the protocol schema is applied —
// an input schema without `type` (GitLab's server), `type: ["object"]`, no input schema at all,
// `properties: []` (PHP's empty array), `required: true`, `additionalProperties: "false"`, `null`
// where a field is optional — and the schema is then checked per tool, so one unusable tool is
// skipped with its reason and never costs the whole list. Only a page that is not a tool list at all
// is refused, with a reason written here (never upstream text).
import type { Tool } from '@modelcontextprotocol/client';
import { mcpCoreSdk } from './mcp-client-sdk.js';
import { UpstreamProtocolError } from './upstream-answer-errors.js';

/** An upstream tool left out of the list, with why; `name` is as received (printed by the caller). */
export interface SkippedUpstreamTool {
  readonly name: unknown;
  readonly reason: string;
}

export interface ToolPage {
  readonly tools: Tool[];
  readonly skipped: SkippedUpstreamTool[];
  readonly nextCursor: string | undefined;
  readonly ttlMs: unknown;
}

/** A whole tools/list page refused; `reason` is the gateway's own words (shown as `last_error`). */
export class ToolListRefusedError extends UpstreamProtocolError {
  constructor(reason: string) {
    super(reason);
    this.name = 'ToolListRefusedError';
  }
}

/** A result schema that accepts any answer, for the SDK client's `request()`: the client would
 * otherwise apply the strict list schema itself and reject every tool for one tool's schema. */
export const ANY_RESULT = {
  '~standard': {
    version: 1 as const,
    vendor: 'agent-gateway',
    validate: (value: unknown) => ({ value }),
  },
};

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const JSON_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'null', 'object']);
/** Keywords that only describe a non-object value: without `type` they leave the meaning unclear. */
const NON_OBJECT_KEYWORDS = ['items', 'prefixItems', 'enum', 'const'] as const;
const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;
/** The Tool fields a schema problem may be named by (a closed set: no upstream text in a reason). */
const TOOL_FIELDS = new Set([
  'name',
  'title',
  'description',
  'inputSchema',
  'outputSchema',
  'annotations',
  'icons',
  'execution',
  '_meta',
]);

function typeProblem(type: unknown): string {
  return typeof type === 'string' && JSON_TYPES.has(type)
    ? `the input schema's type is ${type}, not object`
    : "the input schema's type is not object";
}

/** The input schema with unambiguous deviations repaired, or why the tool cannot be used. */
export function normaliseInputSchema(schema: unknown): { schema: Json } | { problem: string } {
  // No schema at all (or null): a tool that takes no arguments.
  if (schema === undefined || schema === null) return { schema: { type: 'object' } };
  if (!isObject(schema)) return { problem: 'the input schema is not a JSON object' };
  const out: Json = { ...schema };
  const type = out['type'];
  if (type === undefined) {
    // Arguments are always an object (MCP), so `type: object` only says what a call sends anyway;
    // a schema that describes arrays or fixed values instead is not a guess we make.
    if (NON_OBJECT_KEYWORDS.some((keyword) => keyword in out))
      return { problem: 'the input schema has no type and describes a non-object value' };
    out['type'] = 'object';
  } else if (Array.isArray(type)) {
    if (!type.includes('object')) return { problem: "the input schema's type does not include object" };
    out['type'] = 'object';
  } else if (type !== 'object') return { problem: typeProblem(type) };
  if (out['$schema'] !== undefined && typeof out['$schema'] !== 'string') delete out['$schema'];
  const properties = out['properties'];
  // `[]` is how PHP's JSON encoder writes an empty map.
  if (properties === null || (Array.isArray(properties) && properties.length === 0)) delete out['properties'];
  else if (properties !== undefined && !isObject(properties))
    return { problem: "the input schema's properties is not an object" };
  const required = out['required'];
  // Draft-3 `required: true` on the root, or null, says nothing about which arguments are needed.
  if (Array.isArray(required)) out['required'] = required.filter((name) => typeof name === 'string');
  else if (required !== undefined) delete out['required'];
  const additional = out['additionalProperties'];
  if (additional === 'true' || additional === 'false') out['additionalProperties'] = additional === 'true';
  else if (additional !== undefined && typeof additional !== 'boolean' && !isObject(additional))
    delete out['additionalProperties'];
  return { schema: out };
}

/** Optional fields with a value of the wrong kind are dropped (they are optional; null means none).
 * Annotation hints that are not booleans are dropped too, never coerced: an absent `readOnlyHint`
 * makes a tool need write access, the safe reading of a hint nobody can parse. */
function dropMalformedOptionals(tool: Json): void {
  for (const field of ['title', 'description'] as const)
    if (tool[field] !== undefined && typeof tool[field] !== 'string') delete tool[field];
  for (const field of ['_meta', 'execution'] as const)
    if (tool[field] !== undefined && !isObject(tool[field])) delete tool[field];
  const output = tool['outputSchema'];
  if (output !== undefined && !isObject(output)) delete tool['outputSchema'];
  else if (isObject(output) && output['$schema'] !== undefined && typeof output['$schema'] !== 'string') {
    const rest: Json = { ...output };
    delete rest['$schema'];
    tool['outputSchema'] = rest;
  }
  const annotations = tool['annotations'];
  if (annotations !== undefined && !isObject(annotations)) delete tool['annotations'];
  else if (isObject(annotations)) {
    const kept: Json = { ...annotations };
    for (const hint of HINTS)
      if (kept[hint] !== undefined && typeof kept[hint] !== 'boolean') delete kept[hint];
    if (kept['title'] !== undefined && typeof kept['title'] !== 'string') delete kept['title'];
    tool['annotations'] = kept;
  }
  const icons = tool['icons'];
  if (icons !== undefined) {
    const { IconSchema } = mcpCoreSdk();
    if (!Array.isArray(icons)) delete tool['icons'];
    else tool['icons'] = icons.filter((icon) => IconSchema.safeParse(icon).success);
  }
}

/** One tool normalised and checked against the protocol's Tool schema, or why it is skipped. */
export function readTool(entry: unknown): { tool: Tool } | { skipped: SkippedUpstreamTool } {
  if (!isObject(entry)) return { skipped: { name: '', reason: 'the entry is not a JSON object' } };
  const name = entry['name'];
  if (typeof name !== 'string') return { skipped: { name, reason: 'the name is not a string' } };
  const input = normaliseInputSchema(entry['inputSchema']);
  if ('problem' in input) return { skipped: { name, reason: input.problem } };
  const tool: Json = { ...entry, inputSchema: input.schema };
  dropMalformedOptionals(tool);
  const parsed = mcpCoreSdk().ToolSchema.safeParse(tool);
  if (parsed.success) return { tool: parsed.data };
  const fields = [
    ...new Set(
      parsed.error.issues.map((issue) => {
        const field = issue.path[0];
        return typeof field === 'string' && TOOL_FIELDS.has(field) ? field : 'a field';
      }),
    ),
  ];
  return { skipped: { name, reason: `${fields.join(', ')} does not match the protocol schema` } };
}

/** One tools/list page: the usable tools, the skipped ones, the cursor and the cache hint. */
export function readToolPage(result: unknown): ToolPage {
  if (!isObject(result)) throw new ToolListRefusedError('the tools/list result is not a JSON object');
  const entries = result['tools'];
  if (!Array.isArray(entries)) throw new ToolListRefusedError('the tools/list result has no tools array');
  const cursor = result['nextCursor'];
  if (cursor !== undefined && cursor !== null && typeof cursor !== 'string')
    throw new ToolListRefusedError("the tools/list result's nextCursor is not a string");
  const tools: Tool[] = [];
  const skipped: SkippedUpstreamTool[] = [];
  for (const entry of entries) {
    const read = readTool(entry);
    if ('tool' in read) tools.push(read.tool);
    else skipped.push(read.skipped);
  }
  // An empty cursor is how some servers say "no more pages"; following it would list page one again.
  const nextCursor = typeof cursor === 'string' && cursor !== '' ? cursor : undefined;
  return { tools, skipped, nextCursor, ttlMs: result['ttlMs'] };
}
