// Chunk vectors in the PostgreSQL store (issue 22), without pgvector: the Debian server here does
// not ship it, so vectors are unit-length `real[]` in `chunk_vectors`, keyed like the chunk, with a
// foreign key that deletes them with their chunk, under the same row-level-security policy as the
// text tables. Cosine is a dot product computed in SQL over the workspace's vectors of the query's
// space; nothing but the ranked ids leaves the server. A `vector(n)` column with `<=>` when pgvector
// is present is not built yet (it cannot be tested here); `pgvectorAvailable` only detects it.
import type pg from 'pg';
import type {
  ChunkVector,
  EmbeddingSpace,
  SearchFilters,
  UnembeddedChunk,
  VectorHit,
} from './knowledge-store.js';
import type { Row } from './store-rows.js';
import { unitVector } from './vector-math.js';

export const VECTOR_SCHEMA = `
CREATE TABLE IF NOT EXISTS chunk_vectors (
  workspace_id text NOT NULL, doc_id text NOT NULL, chunk_no integer NOT NULL,
  model text NOT NULL, dimensions integer NOT NULL, embedding real[] NOT NULL,
  PRIMARY KEY (workspace_id, doc_id, chunk_no),
  FOREIGN KEY (workspace_id, doc_id, chunk_no) REFERENCES chunks (workspace_id, doc_id, chunk_no) ON DELETE CASCADE);
CREATE INDEX IF NOT EXISTS chunk_vectors_space ON chunk_vectors (workspace_id, model, dimensions);
ALTER TABLE chunk_vectors ENABLE ROW LEVEL SECURITY;
ALTER TABLE chunk_vectors FORCE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS workspace_isolation ON chunk_vectors;
CREATE POLICY workspace_isolation ON chunk_vectors
  USING (workspace_id = current_setting('agw.workspace', true)) WITH CHECK (workspace_id = current_setting('agw.workspace', true));
`;

/** Whether the server can `CREATE EXTENSION vector` (the README's capability check). */
export async function pgvectorAvailable(pool: pg.Pool): Promise<boolean> {
  const { rows } = await pool.query("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'");
  return rows.length > 0;
}

/** Stores vectors in one statement, each vector as an array literal cast per row (slicing one flat
 * parameter array per row was quadratic: 104 vectors/s). Only onto a chunk that exists, of the
 * document version the vector was made for. */
export async function putVectors(
  client: pg.PoolClient,
  workspaceId: string,
  space: EmbeddingSpace,
  vectors: readonly ChunkVector[],
): Promise<number> {
  // One row per chunk (the last wins): ON CONFLICT cannot touch a row twice in one statement.
  const byChunk = new Map(vectors.map((v) => [`${v.docId}#${v.chunkNo}`, v]));
  const rows = [...byChunk.values()].map((v) => ({ ...v, unit: unitVector(v.vector, space) }));
  if (rows.length === 0) return 0;
  const literals = rows.map((row) => `{${Array.from(row.unit).join(',')}}`);
  const result = await client.query(
    `INSERT INTO chunk_vectors (workspace_id, doc_id, chunk_no, model, dimensions, embedding)
     SELECT c.workspace_id, c.doc_id, c.chunk_no, $5, $6, i.embedding::real[]
     FROM unnest($2::text[], $3::int[], $4::text[], $7::text[]) AS i (doc_id, chunk_no, content_hash, embedding)
     JOIN chunks c ON c.workspace_id = $1 AND c.doc_id = i.doc_id AND c.chunk_no = i.chunk_no
     JOIN documents d ON d.workspace_id = $1 AND d.doc_id = i.doc_id AND d.content_hash = i.content_hash
     ON CONFLICT (workspace_id, doc_id, chunk_no) DO UPDATE SET
       model = excluded.model, dimensions = excluded.dimensions, embedding = excluded.embedding`,
    [
      workspaceId,
      rows.map((r) => r.docId),
      rows.map((r) => r.chunkNo),
      rows.map((r) => r.contentHash),
      space.model,
      space.dimensions,
      literals,
    ],
  );
  return result.rowCount ?? 0;
}

export async function chunksWithoutVector(
  client: pg.PoolClient,
  workspaceId: string,
  sourceId: string,
  space: EmbeddingSpace,
  limit: number,
): Promise<UnembeddedChunk[]> {
  // In the chunks' unique-index order (the database's collation), so a batch walks the index and
  // stops at `limit`; ordering by the byte order instead sorted every chunk of the workspace.
  const { rows } = await client.query<Row>(
    `SELECT c.doc_id, c.chunk_no, c.text, d.title, d.content_hash
     FROM chunks c JOIN documents d ON d.workspace_id = c.workspace_id AND d.doc_id = c.doc_id
     WHERE c.workspace_id = $1 AND c.source_id = $2
       AND NOT EXISTS (SELECT 1 FROM chunk_vectors v WHERE v.workspace_id = c.workspace_id
         AND v.doc_id = c.doc_id AND v.chunk_no = c.chunk_no AND v.model = $3 AND v.dimensions = $4)
     ORDER BY c.doc_id, c.chunk_no LIMIT $5`,
    [workspaceId, sourceId, space.model, space.dimensions, limit],
  );
  return rows.map((row) => ({
    docId: String(row['doc_id']),
    chunkNo: Number(row['chunk_no']),
    contentHash: String(row['content_hash']),
    title: String(row['title']),
    text: String(row['text']),
  }));
}

export async function vectorProgress(
  client: pg.PoolClient,
  workspaceId: string,
  sourceId: string,
  space: EmbeddingSpace,
): Promise<{ chunks: number; embedded: number }> {
  const { rows } = await client.query<Row>(
    `SELECT count(*)::int AS chunks, count(v.doc_id)::int AS embedded
     FROM chunks c LEFT JOIN chunk_vectors v ON v.workspace_id = c.workspace_id AND v.doc_id = c.doc_id
       AND v.chunk_no = c.chunk_no AND v.model = $3 AND v.dimensions = $4
     WHERE c.workspace_id = $1 AND c.source_id = $2`,
    [workspaceId, sourceId, space.model, space.dimensions],
  );
  return { chunks: Number(rows[0]?.['chunks'] ?? 0), embedded: Number(rows[0]?.['embedded'] ?? 0) };
}

export async function vectorSearch(
  client: pg.PoolClient,
  workspaceId: string,
  filters: SearchFilters,
  query: Float32Array,
  space: EmbeddingSpace,
  limit: number,
): Promise<VectorHit[]> {
  const unit = unitVector(query, space);
  // The source filters sit on the chunk row, exactly as in the text search.
  const { rows } = await client.query<Row>(
    `SELECT v.doc_id, v.chunk_no,
       (SELECT sum(a::float8 * b::float8) FROM unnest(v.embedding, $6::real[]) AS t (a, b)) AS similarity
     FROM chunk_vectors v
     JOIN chunks c ON c.workspace_id = v.workspace_id AND c.doc_id = v.doc_id AND c.chunk_no = v.chunk_no
     WHERE v.workspace_id = $1 AND v.model = $7 AND v.dimensions = $8 AND c.source_id = ANY($2)
       AND ($3::text IS NULL OR c.source_id = $3) AND ($4::text IS NULL OR c.source_type = $4)
     ORDER BY similarity DESC, v.doc_id COLLATE "C", v.chunk_no LIMIT $5`,
    [
      workspaceId,
      filters.allowedSourceIds,
      filters.sourceId ?? null,
      filters.sourceType ?? null,
      limit,
      Array.from(unit),
      space.model,
      space.dimensions,
    ],
  );
  return rows.map((row) => ({
    docId: String(row['doc_id']),
    chunkNo: Number(row['chunk_no']),
    similarity: Number(row['similarity']),
  }));
}
