// The gateway's own MCP tools (issue 4, spec §4.2 rule 6): `search` over the workspace's knowledge
// index and `get_document`, bounded pages of one document by id with an opaque cursor. They are
// read tools, checked against the key like any other tool, and unprefixed: upstream tools always
// carry `<source>__`, so these names cannot collide.
import { encode } from '@toon-format/toon';
import type { Tool } from '@modelcontextprotocol/client';
import { matchesAny, type Principal } from '../auth/index.js';
import { GET_DOCUMENT_TOOL, SEARCH_TOOL } from '../discovery/index.js';
import { isGatewayError } from '../errors/index.js';
import { maskSecretsFor } from '../governance/index.js';
import {
  DocumentNotFound,
  GROUP_BY,
  InvalidCursor,
  noteSearchScope,
  parseChunkId,
  parseSearchBody,
  RETRIEVAL_MODES,
  SNIPPET_DEFAULT,
  SNIPPET_MAX,
  SNIPPET_MIN,
  type KnowledgeService,
} from '../knowledge/index.js';
import { McpError } from './jsonrpc.js';
import type { McpResult } from './mcp-request.js';
import { RPC } from '../protocol/index.js';
import { noteAudit, noteDenial } from '../telemetry/audit-context.js';

/** The `mode` argument of the gateway's search tools (documents and tools rank the same ways). */
export const MODE_PROPERTY: { type: string; enum: string[]; description: string } = {
  type: 'string',
  enum: [...RETRIEVAL_MODES],
  description:
    'lexical (words), semantic (meaning) or hybrid (both); default hybrid when the workspace has embeddings, else lexical',
};

export const KNOWLEDGE_TOOLS: readonly Tool[] = [
  {
    name: GET_DOCUMENT_TOOL,
    description:
      'Returns bounded chunks of one document by its doc_id (from search results), from its start or from chunk_id. Pass next_cursor back as cursor for the next page.',
    inputSchema: {
      type: 'object',
      properties: {
        doc_id: { type: 'string' },
        cursor: { type: 'string', description: 'next_cursor of the previous page' },
        chunk_id: {
          type: 'string',
          description:
            "start the page at this chunk of the document (e.g. one of a search result's other_chunk_ids) instead of its first; not with cursor",
        },
      },
      required: ['doc_id'],
    },
    annotations: { readOnlyHint: true },
  },
  {
    name: SEARCH_TOOL,
    description:
      "Searches the workspace's connected knowledge and returns ranked documents (one per document by default) with their best snippet, ids and sources.",
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', maxLength: 2000 },
        limit: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
        connector_id: { type: 'string' },
        source_type: { type: 'string' },
        snippet_chars: {
          type: 'integer',
          minimum: SNIPPET_MIN,
          maximum: SNIPPET_MAX,
          default: SNIPPET_DEFAULT,
        },
        mode: MODE_PROPERTY,
        group_by: {
          type: 'string',
          enum: [...GROUP_BY],
          default: 'document',
          description:
            'document: one result per document, its best chunk as the snippet (more_chunks and other_chunk_ids name the rest); chunk: one result per chunk',
        },
      },
      required: ['query'],
    },
    annotations: { readOnlyHint: true },
  },
];

export function knowledgeToolsFor(principal: Principal, knowledge: KnowledgeService): Tool[] {
  if (!knowledge.hasSources(principal)) return [];
  return KNOWLEDGE_TOOLS.filter((tool) => matchesAny(principal.toolPatterns, tool.name));
}

export function isKnowledgeTool(name: string): boolean {
  return KNOWLEDGE_TOOLS.some((tool) => tool.name === name);
}

/** The tool's answer, credentials in its snippets and chunks masked (issue 41 part 5). */
function toolResult(principal: Principal, answer: unknown): McpResult {
  const value = maskSecretsFor(principal.workspace, answer);
  return {
    content: [{ type: 'text', text: encode(value) }],
    structuredContent: value,
  };
}

function invalid(message: string): McpError {
  return new McpError(200, RPC.invalidParams, message);
}

export async function callKnowledgeTool(
  name: string,
  args: Record<string, unknown>,
  principal: Principal,
  knowledge: KnowledgeService,
): Promise<McpResult> {
  if (name === SEARCH_TOOL) {
    const { snippet_chars: snippetChars, mode, group_by: groupBy, ...rest } = args;
    const options = {
      ...(snippetChars === undefined ? {} : { snippet_chars: snippetChars }),
      ...(mode === undefined ? {} : { mode }),
      ...(groupBy === undefined ? {} : { group_by: groupBy }),
    };
    let parsed;
    try {
      parsed = parseSearchBody({ ...rest, ...(Object.keys(options).length === 0 ? {} : { options }) });
    } catch (error) {
      throw invalid(isGatewayError(error) ? error.message : 'Invalid arguments.');
    }
    noteSearchScope(principal, parsed.request, 'source');
    const { records, retrieval } = await knowledge.search(principal, parsed.request);
    return toolResult(principal, {
      query: parsed.request.query,
      count: records.length,
      ...(retrieval === undefined ? {} : { retrieval }),
      results: records,
    });
  }
  const docId = args['doc_id'];
  const cursor = args['cursor'];
  const startAt = args['chunk_id'];
  if (typeof docId !== 'string' || docId === '')
    throw invalid('Invalid arguments: doc_id must be a non-empty string.');
  if (cursor !== undefined && typeof cursor !== 'string')
    throw invalid('Invalid arguments: cursor must be a string.');
  let fromChunk: number | undefined;
  if (startAt !== undefined) {
    const chunk = typeof startAt === 'string' ? parseChunkId(startAt) : undefined;
    if (chunk === undefined || chunk.docId !== docId)
      throw invalid('Invalid arguments: chunk_id must be a chunk id of doc_id (doc_id#c<n>).');
    if (cursor !== undefined)
      throw invalid('Invalid arguments: chunk_id and cursor cannot be used together.');
    fromChunk = chunk.chunkNo;
  }
  try {
    return toolResult(principal, await knowledge.getDocument(principal, docId, cursor, fromChunk));
  } catch (error) {
    if (error instanceof DocumentNotFound) {
      // A document of a data source the key cannot see: told to the auditor, never the caller.
      if (error.hiddenIn !== undefined) {
        noteAudit({ source: error.hiddenIn });
        noteDenial('not_visible');
      }
      throw invalid(`Unknown document: ${docId}`);
    }
    if (error instanceof InvalidCursor) throw invalid(`Invalid cursor: ${error.message}`);
    throw error;
  }
}
