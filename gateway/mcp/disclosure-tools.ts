// Progressive tool disclosure (issue 23): with `toolDisclosure: search`, tools/list offers the
// gateway's own tools only, and these two find and call the workspace's tools on demand. find_tools
// ranks the key's own view (what tools/list would have listed: visible and callable), so a tool the
// key cannot call is never found; call_tool hands the inner call to the tools/call handler itself,
// so it meets the same checks, breaker, limits, tracing and errors as a direct call. Unprefixed like
// the knowledge tools, and reserved: an unprefixed source's tool of the same name never takes them.
import type { Tool } from '@modelcontextprotocol/client';
import { hasAccess, type Principal } from '../auth/index.js';
import {
  CALL_TOOL,
  catalogFor,
  exposeTools,
  FIND_TOOLS,
  isVisible,
  type ToolCatalog,
} from '../discovery/index.js';
import {
  FIND_TOOLS_BOUNDS,
  parseToolQuery,
  retrievalRecord,
  TOOL_QUERY_MAX_CHARS,
  type ToolSearch,
} from '../tool-search/index.js';
import { McpError } from './jsonrpc.js';
import { MODE_PROPERTY } from './knowledge-tools.js';
import type { McpResult } from './mcp-request.js';
import { RPC } from '../protocol/index.js';

export const DISCLOSURE_TOOLS: readonly Tool[] = [
  {
    name: FIND_TOOLS,
    description:
      "Finds this workspace's tools for a task. Describe what you want to do; the best matching tools come back with their names, descriptions and input schemas. Call one with call_tool.",
    inputSchema: {
      type: 'object',
      properties: {
        query: {
          type: 'string',
          minLength: 1,
          maxLength: TOOL_QUERY_MAX_CHARS,
          description: 'the task, in your own words',
        },
        limit: {
          type: 'integer',
          minimum: 1,
          maximum: FIND_TOOLS_BOUNDS.maxLimit,
          default: FIND_TOOLS_BOUNDS.defaultLimit,
        },
        mode: MODE_PROPERTY,
      },
      required: ['query'],
    },
    annotations: { readOnlyHint: true },
  },
  {
    name: CALL_TOOL,
    description:
      "Calls one of this workspace's tools by the name find_tools returned, with arguments that follow its input schema. Answers with that tool's own result.",
    inputSchema: {
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 200, description: 'the tool name from find_tools' },
        arguments: { type: 'object', description: "the tool's arguments" },
      },
      required: ['name'],
    },
  },
];

export function disclosureToolsFor(principal: Principal): readonly Tool[] {
  return principal.toolDisclosure === 'search' ? DISCLOSURE_TOOLS : [];
}

/** Whether `name` is one of the two tools and this key has them. */
export function isDisclosureCall(principal: Principal, name: string): boolean {
  return principal.toolDisclosure === 'search' && (name === FIND_TOOLS || name === CALL_TOOL);
}

function invalid(message: string): McpError {
  return new McpError(200, RPC.invalidParams, message);
}

/** The inner call of a call_tool: its name and arguments, checked for shape only (everything else is
 * the tools/call handler's to decide). */
export function innerCall(args: Record<string, unknown>): {
  name: string;
  arguments: Record<string, unknown> | undefined;
} {
  const unknownKeys = Object.keys(args).filter((key) => key !== 'name' && key !== 'arguments');
  if (unknownKeys.length > 0)
    throw invalid(
      `Invalid arguments: call_tool takes name and arguments only (got ${unknownKeys.length} other).`,
    );
  const name = args['name'];
  if (typeof name !== 'string' || name === '')
    throw invalid('Invalid arguments: name must be a non-empty string.');
  if (name === FIND_TOOLS || name === CALL_TOOL)
    throw invalid(`Invalid arguments: call ${name} directly, not through call_tool.`);
  const inner = args['arguments'];
  if (inner !== undefined && (typeof inner !== 'object' || inner === null || Array.isArray(inner)))
    throw invalid('Invalid arguments: arguments must be an object.');
  return { name, arguments: inner as Record<string, unknown> | undefined };
}

export async function findTools(
  args: Record<string, unknown>,
  principal: Principal,
  catalog: ToolCatalog,
  search: ToolSearch,
): Promise<McpResult> {
  const unknownKeys = Object.keys(args).filter((key) => !['query', 'limit', 'mode'].includes(key));
  if (unknownKeys.length > 0)
    throw invalid('Invalid arguments: find_tools takes query, limit and mode only.');
  const parsed = parseToolQuery(
    { query: args['query'], limit: args['limit'], mode: args['mode'] },
    FIND_TOOLS_BOUNDS,
  );
  if (!parsed.ok)
    throw invalid(`Invalid arguments: ${parsed.problems.map((p) => `${p.path} ${p.problem}`).join('; ')}.`);
  // The view is filtered before anything is ranked: only the tools tools/list would have listed.
  const { tools, sources } = await catalogFor(catalog, principal);
  const names = new Map(
    exposeTools(
      principal,
      tools.filter((tool) => isVisible(principal, tool)),
    ).map(({ tool, name }) => [tool.name, name] as const),
  );
  const view = tools.filter((tool) => names.has(tool.name) && hasAccess(principal, tool.permission));
  const found = await search.rank(principal.workspace.name, view, parsed.request);
  const unavailable = [...sources]
    .filter(([, state]) => state.status === 'unavailable')
    .map(([source]) => source);
  const retrieval = retrievalRecord(found, parsed.request);
  const value = {
    query: parsed.request.query,
    count: found.tools.length,
    ...(retrieval === undefined ? {} : { retrieval }),
    tools: found.tools.map(({ tool, foundBy }) => ({
      name: names.get(tool.name) ?? tool.name,
      source: tool.source,
      description: tool.description,
      input_schema: tool.inputSchema,
      ...(retrieval === undefined ? {} : { found_by: foundBy }),
    })),
    ...(unavailable.length > 0 ? { unavailable_sources: unavailable } : {}),
  };
  // JSON, not TOON, in the text: input schemas are nested objects, where TOON costs more tokens
  // (o200k: 1,291 vs 1,405 per 5-tool answer on the tool-retrieval set, npm run bench -- tools).
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
}
