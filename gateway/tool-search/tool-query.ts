// The parameters of a tool search, as `find_tools` arguments and `/agent/tools` query parameters
// (issue 23): a task description, a bounded limit and an optional retrieval mode. Problems are
// returned with the field they concern, for the caller's own error shape.
import { RETRIEVAL_MODES, type RetrievalMode } from '../knowledge/index.js';
import type { ToolSearchRequest } from './tool-search.js';

export const TOOL_QUERY_MAX_CHARS = 2000;

export interface ToolQueryBounds {
  readonly defaultLimit: number;
  readonly maxLimit: number;
}

/** find_tools: a few tools with their full input schemas. */
export const FIND_TOOLS_BOUNDS: ToolQueryBounds = { defaultLimit: 5, maxLimit: 20 };
/** GET /agent/tools?query=: a ranked listing without schemas. */
export const LISTING_BOUNDS: ToolQueryBounds = { defaultLimit: 10, maxLimit: 100 };

export type ToolQueryParse =
  | { readonly ok: true; readonly request: ToolSearchRequest }
  | { readonly ok: false; readonly problems: readonly { readonly path: string; readonly problem: string }[] };

/** Parses raw values: numbers may arrive as JSON numbers (MCP) or decimal strings (a query string). */
export function parseToolQuery(
  raw: { readonly query: unknown; readonly limit: unknown; readonly mode: unknown },
  bounds: ToolQueryBounds,
): ToolQueryParse {
  const problems: { path: string; problem: string }[] = [];
  const query = raw.query;
  if (typeof query !== 'string')
    problems.push({ path: 'query', problem: 'is required and must be a string' });
  else if (query.trim() === '') problems.push({ path: 'query', problem: 'must not be empty' });
  else if ([...query].length > TOOL_QUERY_MAX_CHARS)
    problems.push({ path: 'query', problem: `must be at most ${TOOL_QUERY_MAX_CHARS} characters` });
  let limit = bounds.defaultLimit;
  if (raw.limit !== undefined) {
    const value =
      typeof raw.limit === 'string' && /^\d{1,6}$/.test(raw.limit) ? Number(raw.limit) : raw.limit;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > bounds.maxLimit)
      problems.push({ path: 'limit', problem: `must be an integer from 1 to ${bounds.maxLimit}` });
    else limit = value;
  }
  const mode = raw.mode;
  if (mode !== undefined && !(RETRIEVAL_MODES as readonly unknown[]).includes(mode))
    problems.push({ path: 'mode', problem: `must be one of: ${RETRIEVAL_MODES.join(', ')}` });
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    request: {
      query: query as string,
      limit,
      ...(mode === undefined ? {} : { mode: mode as RetrievalMode }),
    },
  };
}
