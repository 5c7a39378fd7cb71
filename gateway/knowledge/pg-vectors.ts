// Chunk vectors in the PostgreSQL store (issue 22), without pgvector (the Debian server here does
// not ship it): unit-length float32 vectors as little-endian `bytea` in `chunk_vectors`, keyed like
// the chunk, with a foreign key that deletes them with their chunk, under the same row-level-security
// policy as the text tables. Search runs in gateway memory like the embedded store's (vector-cache.ts):
// each workspace's vectors of a space are loaded once (bytea, hex on the wire: no float text to
// parse) and reloaded when the workspace's row in `vector_epochs` moved, which every write that adds or
// removes a vector bumps in that same transaction; checking it is one primary-key read per search.
import type pg from 'pg';
import { workspaceIsolation } from './pg-isolation.js';
import type {
  ChunkVector,
  EmbeddingSpace,
  SearchFilters,
  UnembeddedChunk,
  VectorHit,
} from './knowledge-store.js';
import type { Row } from './store-rows.js';
import type { HeldVectors, VectorCache } from './vector-cache.js';
import { advanceFillMark, putTwins } from './pgvector-search.js';
import { unitVector, vectorBytes } from './vector-math.js';
import { VectorMatrix, type MatrixRow } from './vector-matrix.js';

/** Moves the workspace's vector epoch, in the caller's transaction, as its last statement: the
 * epoch row is the one lock every vector writer of a workspace shares, so taking it last, once every
 * row lock is held, means no writer waits for another while holding it (no deadlock). */
export async function bumpEpoch(client: pg.PoolClient, workspaceId: string): Promise<void> {
  await client.query(
    `INSERT INTO vector_epochs (workspace_id, epoch) VALUES ($1, 1)
     ON CONFLICT (workspace_id) DO UPDATE SET epoch = vector_epochs.epoch + 1`,
    [workspaceId],
  );
}

/** Removes documents' vectors ahead of their chunks (in the caller's transaction), and says whether
 * there were any: the caller then bumps the epoch (the foreign key's cascade would remove them too,
 * but then nothing would know to move it). */
export async function removeForDocuments(
  client: pg.PoolClient,
  workspaceId: string,
  docIds: readonly string[],
): Promise<boolean> {
  const { rowCount } = await client.query(
    'DELETE FROM chunk_vectors WHERE workspace_id = $1 AND doc_id = ANY($2)',
    [workspaceId, docIds],
  );
  return (rowCount ?? 0) > 0;
}

export const VECTOR_SCHEMA = `
DO $$ BEGIN
  -- The unreleased real[] column: its vectors are dropped and re-embedded by the next sync.
  IF EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema()
      AND table_name = 'chunk_vectors' AND column_name = 'embedding') THEN
    DROP TABLE chunk_vectors;
  END IF;
END $$;
CREATE TABLE IF NOT EXISTS chunk_vectors (
  workspace_id text NOT NULL, doc_id text NOT NULL, chunk_no integer NOT NULL,
  model text NOT NULL, dimensions integer NOT NULL, vector bytea NOT NULL,
  PRIMARY KEY (workspace_id, doc_id, chunk_no),
  FOREIGN KEY (workspace_id, doc_id, chunk_no) REFERENCES chunks (workspace_id, doc_id, chunk_no) ON DELETE CASCADE);
CREATE INDEX IF NOT EXISTS chunk_vectors_space ON chunk_vectors (workspace_id, model, dimensions);
CREATE TABLE IF NOT EXISTS vector_epochs (workspace_id text PRIMARY KEY, epoch bigint NOT NULL);
${workspaceIsolation('chunk_vectors', 'vector_epochs')}
`;

/** Whether the server can `CREATE EXTENSION vector` (the README's capability check). */
export async function pgvectorAvailable(pool: pg.Pool): Promise<boolean> {
  const { rows } = await pool.query("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'");
  return rows.length > 0;
}

/** Stores vectors in one statement, each as its float32 bytes. Only onto a chunk that exists, of
 * the document version the vector was made for. With `twins` (pgvector mode) their pgvector twins
 * follow in the same transaction (pgvector-search.ts). */
export async function putVectors(
  client: pg.PoolClient,
  workspaceId: string,
  space: EmbeddingSpace,
  vectors: readonly ChunkVector[],
  twins: boolean,
): Promise<number> {
  // One row per chunk (the last wins): ON CONFLICT cannot touch a row twice in one statement.
  const byChunk = new Map(vectors.map((v) => [`${v.docId}#${v.chunkNo}`, v]));
  const rows = [...byChunk.values()].map((v) => ({ ...v, unit: unitVector(v.vector, space) }));
  if (rows.length === 0) return 0;
  const result = await client.query(
    `INSERT INTO chunk_vectors (workspace_id, doc_id, chunk_no, model, dimensions, vector)
     SELECT c.workspace_id, c.doc_id, c.chunk_no, $5, $6, i.vector
     FROM unnest($2::text[], $3::int[], $4::text[], $7::bytea[]) AS i (doc_id, chunk_no, content_hash, vector)
     JOIN chunks c ON c.workspace_id = $1 AND c.doc_id = i.doc_id AND c.chunk_no = i.chunk_no
     JOIN documents d ON d.workspace_id = $1 AND d.doc_id = i.doc_id AND d.content_hash = i.content_hash
     ON CONFLICT (workspace_id, doc_id, chunk_no) DO UPDATE SET
       model = excluded.model, dimensions = excluded.dimensions, vector = excluded.vector`,
    [
      workspaceId,
      rows.map((r) => r.docId),
      rows.map((r) => r.chunkNo),
      rows.map((r) => r.contentHash),
      space.model,
      space.dimensions,
      rows.map((r) => Buffer.from(vectorBytes(r.unit))),
    ],
  );
  const stored = result.rowCount ?? 0;
  if (stored > 0 && twins) await putTwins(client, workspaceId, space, rows);
  if (stored > 0) await bumpEpoch(client, workspaceId);
  if (stored > 0 && twins) await advanceFillMark(client, workspaceId);
  return stored;
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

/** Runs work in a transaction scoped to the workspace (row-level security reads `agw.workspace`). */
type Scoped = <T>(work: (client: pg.PoolClient) => Promise<T>) => Promise<T>;

export async function vectorSearch(
  pool: pg.Pool,
  scoped: Scoped,
  workspaceId: string,
  cache: VectorCache,
  filters: SearchFilters,
  query: Float32Array,
  space: EmbeddingSpace,
  limit: number,
): Promise<VectorHit[]> {
  const unit = unitVector(query, space);
  const held =
    cache.current(await currentEpoch(pool, workspaceId), space) ??
    (await scoped((client) => heldVectors(client, workspaceId, cache, space)));
  return held.search(filters, unit, limit);
}

/** The workspace's vector epoch in one round trip: the scoped transaction as one simple-protocol
 * string (four round trips as separate statements cost ~2 ms of a ~5 ms search under load). The
 * workspace id goes in as an escaped literal, since the simple protocol takes no parameters. */
async function currentEpoch(pool: pg.Pool, workspaceId: string): Promise<number> {
  const client = await pool.connect();
  try {
    const ws = client.escapeLiteral(workspaceId);
    const results = (await client.query(
      `BEGIN; SELECT set_config('agw.workspace', ${ws}, true); SELECT epoch FROM vector_epochs WHERE workspace_id = ${ws}; COMMIT`,
    )) as unknown as pg.QueryResult<Row>[];
    return Number(results[2]?.rows[0]?.['epoch'] ?? 0);
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** The workspace's matrix of `space`, reloaded when the epoch moved. The epoch is read again in
 * the loading transaction, before the rows: a write in between only costs one more reload, never
 * stale hits. */
async function heldVectors(
  client: pg.PoolClient,
  workspaceId: string,
  cache: VectorCache,
  space: EmbeddingSpace,
): Promise<HeldVectors> {
  const { rows } = await client.query<Row>('SELECT epoch FROM vector_epochs WHERE workspace_id = $1', [
    workspaceId,
  ]);
  const epoch = Number(rows[0]?.['epoch'] ?? 0);
  return (
    cache.current(epoch, space) ??
    cache.load(epoch, space, () => loadMatrix(client, workspaceId, space, epoch))
  );
}

async function loadMatrix(
  client: pg.PoolClient,
  workspaceId: string,
  space: EmbeddingSpace,
  epoch: number,
): Promise<VectorMatrix> {
  // The source filters sit on the chunk row, exactly as in the text search.
  // The bytes arrive hex-encoded (pg's protocol parser reads text rows only) and are decoded natively.
  const { rows } = await client.query<{
    doc_id: string;
    chunk_no: number;
    source_id: string;
    source_type: string;
    vector: Buffer;
  }>(
    `SELECT v.doc_id, v.chunk_no, c.source_id, c.source_type, v.vector
     FROM chunk_vectors v
     JOIN chunks c ON c.workspace_id = v.workspace_id AND c.doc_id = v.doc_id AND c.chunk_no = v.chunk_no
     WHERE v.workspace_id = $1 AND v.model = $2 AND v.dimensions = $3`,
    [workspaceId, space.model, space.dimensions],
  );
  const matrixRows = rows.map((r): MatrixRow => ({
    docId: r.doc_id,
    chunkNo: r.chunk_no,
    sourceId: r.source_id,
    sourceType: r.source_type,
    bytes: r.vector,
  }));
  return new VectorMatrix(space, epoch, matrixRows, matrixRows.length);
}
