// Validation of a knowledge search request (spec §2.1, §8): the /agent/search and /agent/query body,
// and the arguments of the MCP `search` tool, which both faces parse here. Every rejected input gets
// a 400 naming the field. Defaults: limit 10, options.snippet_chars 300 (bounds 40–2,000), options.mode
// hybrid when the workspace has embeddings, else lexical, options.group_by document (one entry per
// document; chunk: one per chunk).
import { z } from 'zod';
import { canSeeSource, type Principal } from '../auth/index.js';
import { SOURCE_TYPES, formatPath } from '../config/index.js';
import { GatewayError } from '../errors/index.js';
import type { SearchRequest } from './knowledge-service.js';
import { RETRIEVAL_MODES } from './retrieve.js';
import { GROUP_BY } from './document-collapse.js';
import { noteAudit, noteDenial, noteTarget } from '../telemetry/audit-context.js';

export const QUERY_MAX_CHARS = 2000;
export const DEFAULT_LIMIT = 10;
export const SNIPPET_DEFAULT = 300;
export const SNIPPET_MIN = 40;
export const SNIPPET_MAX = 2000;

const SearchBodySchema = z.strictObject({
  query: z
    .string({ error: 'is required and must be a string' })
    .refine((q) => q.trim() !== '', 'must not be empty')
    .refine((q) => [...q].length <= QUERY_MAX_CHARS, `must be at most ${QUERY_MAX_CHARS} characters`),
  limit: z
    .number({ error: 'must be an integer from 1 to 100' })
    .int('must be an integer from 1 to 100')
    .min(1, 'must be at least 1')
    .max(100, 'must be at most 100')
    .default(DEFAULT_LIMIT),
  connector_id: z.string().min(1).max(40).optional(),
  source_type: z.enum(SOURCE_TYPES, { error: `must be one of: ${SOURCE_TYPES.join(', ')}` }).optional(),
  options: z
    .strictObject({
      response_format: z.enum(['json', 'toon'], { error: 'must be "json" or "toon"' }).optional(),
      snippet_chars: z
        .number({ error: `must be an integer from ${SNIPPET_MIN} to ${SNIPPET_MAX}` })
        .int()
        .min(SNIPPET_MIN, `must be at least ${SNIPPET_MIN}`)
        .max(SNIPPET_MAX, `must be at most ${SNIPPET_MAX}`)
        .default(SNIPPET_DEFAULT),
      mode: z.enum(RETRIEVAL_MODES, { error: `must be one of: ${RETRIEVAL_MODES.join(', ')}` }).optional(),
      group_by: z.enum(GROUP_BY, { error: `must be one of: ${GROUP_BY.join(', ')}` }).optional(),
    })
    .default({ snippet_chars: SNIPPET_DEFAULT }),
});

export interface ParsedSearchBody {
  readonly request: SearchRequest;
  readonly responseFormat: 'json' | 'toon' | undefined;
}

export function parseSearchBody(body: unknown): ParsedSearchBody {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new GatewayError('invalid_request', 'The request body must be a JSON object.', {
      details: [{ path: '(body)', problem: 'must be a JSON object' }],
    });
  }
  const parsed = SearchBodySchema.safeParse(body);
  if (!parsed.success) {
    const details = parsed.error.issues.map((issue) => ({
      path: formatPath(issue.path),
      problem: issue.message,
    }));
    throw new GatewayError(
      'invalid_request',
      `Invalid request: ${details.map((d) => `${d.path} ${d.problem}`).join('; ')}.`,
      { details },
    );
  }
  const value = parsed.data;
  return {
    request: {
      query: value.query,
      limit: value.limit,
      connectorId: value.connector_id,
      sourceType: value.source_type,
      snippetChars: value.options.snippet_chars,
      mode: value.options.mode,
      groupBy: value.options.group_by ?? 'document',
    },
    responseFormat: value.options.response_format,
  };
}

/** For the audit record: a search narrowed to one data source (`connector_id`) names it; one the key
 * cannot see is told to the auditor (`not_visible`), while the caller gets what a source that does
 * not exist gives: no results. REST records the source as the request's target; the MCP `search`
 * tool keeps the tool as its target and adds the source. */
export function noteSearchScope(
  principal: Principal,
  search: SearchRequest,
  recordAs: 'target' | 'source',
): void {
  const id = search.connectorId;
  if (id === undefined) return;
  const source = principal.workspace.dataSources.find((candidate) => candidate.name === id);
  const visible = canSeeSource(principal, id);
  if (recordAs === 'target') noteTarget('source', source, visible, { requested: id });
  else if (source !== undefined) {
    noteAudit({ source: source.name });
    if (!visible) noteDenial('not_visible');
  }
}
