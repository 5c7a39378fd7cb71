// One search result as the agent endpoints and the MCP `search` tool return it (spec §2.2): a chunk,
// or a document through its best chunk with its other matching chunks counted and named. Every
// column is a primitive, so a TOON body renders the results as one table.
import type { FoundBy } from './hybrid-fusion.js';
import { OTHER_CHUNK_IDS_SHOWN } from './document-collapse.js';
import type { RetrievedHit } from './retrieve.js';
import { makeSnippet } from './snippet.js';
import { chunkId } from './stable-ids.js';

export interface SearchRecord {
  readonly rank: number;
  readonly doc_id: string;
  readonly chunk_id: string;
  readonly score: number;
  readonly title: string;
  readonly snippet: string;
  readonly connector_id: string;
  readonly source_type: string;
  readonly url: string | null;
  readonly updated_at: string | null;
  /** Which candidate lists found the chunk: lexical, semantic or lexical+semantic (with `retrieval`). */
  readonly found_by?: FoundBy;
  /** With group_by document: how many other chunks of the document were among the candidates. */
  readonly more_chunks?: number;
  /** With group_by document: the best few of those chunks' ids, `;`-joined (null when none). */
  readonly other_chunk_ids?: string | null;
}

/** The record of one result: a chunk, or (with `others`) a document through its best chunk. */
export function searchRecord(
  { hit, foundBy }: RetrievedHit,
  rank: number,
  terms: readonly string[],
  snippetChars: number,
  shown: boolean,
  others: readonly number[] | undefined,
): SearchRecord {
  return {
    rank,
    doc_id: hit.docId,
    chunk_id: chunkId(hit.docId, hit.chunkNo),
    score: Number(hit.score.toPrecision(4)),
    title: hit.title,
    snippet: makeSnippet(hit.text, terms, snippetChars),
    connector_id: hit.sourceId,
    source_type: hit.sourceType,
    url: hit.url ?? null,
    updated_at: hit.updatedAt ?? null,
    ...(shown ? { found_by: foundBy } : {}),
    // Flat primitive columns, so a TOON body stays one table: a count and a `;`-joined id list.
    ...(others === undefined
      ? {}
      : {
          more_chunks: others.length,
          other_chunk_ids:
            others.length === 0
              ? null
              : others
                  .slice(0, OTHER_CHUNK_IDS_SHOWN)
                  .map((n) => chunkId(hit.docId, n))
                  .join(';'),
        }),
  };
}
