// Documents, not fragments (issue 39 goal 2): a search's ranked chunks collapse to one entry per
// document, ranked where its best chunk ranked, with a count and the ids of its other matching chunks
// so they stay reachable. Also fixes the candidate pool every search draws, so a query ranks the same
// whatever `limit` it asks for.
import type { RetrievedHit } from './retrieve.js';

/** How search results are grouped: one entry per document (default) or every chunk on its own. */
export const GROUP_BY = ['document', 'chunk'] as const;
export type GroupBy = (typeof GROUP_BY)[number];

/** Chunks each candidate list (lexical, semantic) offers before fusion, re-rank and collapse. It is
 * a constant, not derived from `limit`: hybrid fusion normalises scores over the pool and the
 * collapse counts chunks over it, so a pool that grew with `limit` ranked the same query differently
 * at limit 10 and 30. 200 chunks usually hold the 100 documents the largest `limit` asks for; when
 * one document owns many of them a search returns fewer than `limit` documents rather than draw
 * again. Raising it costs re-rank and hydration time on every search. */
export const CANDIDATE_POOL = 200;

/** How many other chunk ids a collapsed entry lists (best first); `more_chunks` counts them all. */
export const OTHER_CHUNK_IDS_SHOWN = 3;

export interface DocumentEntry {
  /** The document's best-ranked chunk: it gives the entry its rank, score and snippet. */
  readonly best: RetrievedHit;
  /** Chunk numbers of the document's other candidate chunks, best first. */
  readonly others: number[];
}

/** One entry per document in the order of each document's best chunk, in one pass over the hits. */
export function collapseByDocument(hits: readonly RetrievedHit[]): DocumentEntry[] {
  const byDoc = new Map<string, DocumentEntry>();
  for (const retrieved of hits) {
    const entry = byDoc.get(retrieved.hit.docId);
    if (entry === undefined) byDoc.set(retrieved.hit.docId, { best: retrieved, others: [] });
    else entry.others.push(retrieved.hit.chunkNo);
  }
  // A Map iterates in insertion order, which is the order of each document's first (best) chunk.
  return [...byDoc.values()];
}
