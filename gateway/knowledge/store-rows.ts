// Row → record mappings shared by both KnowledgeStore implementations: the schema's column names are
// the same in SQLite and PostgreSQL, so one mapping serves both.
import type { ChunkKey, SearchHit, StoredChunk, StoredDocument } from './knowledge-store.js';

export type Row = Record<string, unknown>;

const str = (value: unknown): string => (typeof value === 'string' ? value : String(value));
const optional = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

export function documentFromRow(row: Row): StoredDocument {
  return {
    docId: str(row['doc_id']),
    sourceId: str(row['source_id']),
    sourceType: str(row['source_type']),
    externalId: str(row['external_id']),
    title: str(row['title']),
    url: optional(row['url']),
    updatedAt: optional(row['updated_at']),
    contentHash: str(row['content_hash']),
    bodyChars: Number(row['body_chars']),
    chunkCount: Number(row['chunk_count']),
  };
}

/** A search hit from a row of chunk and document columns; the score comes from the ranking step. */
export function hitFromRow(row: Row, score: number): SearchHit {
  const heading = optional(row['heading']);
  return {
    docId: str(row['doc_id']),
    chunkNo: Number(row['chunk_no']),
    text: str(row['text']),
    score,
    title: str(row['title']),
    url: optional(row['url']),
    sourceId: str(row['source_id']),
    sourceType: str(row['source_type']),
    updatedAt: optional(row['updated_at']),
    ...(heading === undefined ? {} : { heading }),
  };
}

/** The chunk (c) and document (d) columns `hitFromValues` reads, in its order: a statement that
 * returns arrays of values selects them first. */
export const HIT_COLUMNS =
  'c.doc_id, c.chunk_no, c.text, c.heading, d.title, d.url, d.source_id, d.source_type, d.updated_at';

/** `hitFromRow` for a row read as an array of HIT_COLUMNS' values (no per-row object to build). */
export function hitFromValues(values: readonly unknown[], score: number): SearchHit {
  const heading = optional(values[3]);
  return {
    docId: str(values[0]),
    chunkNo: Number(values[1]),
    text: str(values[2]),
    score,
    title: str(values[4]),
    url: optional(values[5]),
    sourceId: str(values[6]),
    sourceType: str(values[7]),
    updatedAt: optional(values[8]),
    ...(heading === undefined ? {} : { heading }),
  };
}

export function chunkFromRow(docId: string, row: Row): StoredChunk {
  return {
    docId,
    chunkNo: Number(row['chunk_no']),
    text: str(row['text']),
    charStart: Number(row['char_start']),
    charEnd: Number(row['char_end']),
  };
}

/** Hits put in the order of the keys that named them; keys with no hit are left out. */
export function inKeyOrder(keys: readonly ChunkKey[], hits: readonly SearchHit[]): SearchHit[] {
  const byKey = new Map(hits.map((hit) => [`${hit.chunkNo}:${hit.docId}`, hit]));
  return keys.flatMap((key) => {
    const hit = byKey.get(`${key.chunkNo}:${key.docId}`);
    return hit === undefined ? [] : [hit];
  });
}
