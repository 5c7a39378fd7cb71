// Vector search inside PostgreSQL with pgvector (issue 22), the alternative to holding each
// workspace's vectors in gateway memory (pg-vectors.ts). `chunk_vectors.vector` (float32 bytea) stays
// the source of truth in every mode; `chunk_embeddings` is its pgvector twin with the chunk's source
// columns, so one HNSW index scan filters by workspace, space and source without a join. A twin is
// written with its bytea in pgvector mode, dropped by a trigger when anything else rewrites the bytea,
// and filled from the bytea when missing: switching modes never loses a vector (docs/configuration.md).
import type pg from 'pg';
import { workspaceIsolation } from './pg-isolation.js';
import type { EmbeddingSpace, SearchFilters, VectorHit } from './knowledge-store.js';
import type { Row } from './store-rows.js';
import { TopHits, unitVector } from './vector-math.js';

/** Where the PostgreSQL store ranks vectors: `auto` resolves to one of the other two at start. */
export type PgVectorSearch = 'auto' | 'pgvector' | 'memory';

/** HNSW indexes `vector` up to 2,000 dimensions; longer vectors are ranked exactly (no index). */
const MAX_INDEXED_DIMENSIONS = 2000;

/** The twin table, its trigger and the fill marks; needs the extension and the table owner.
 * `vector_twins_filled.epoch` is the workspace's vector epoch at which every bytea had its twin: a
 * search compares it with `vector_epochs` and fills the missing twins when they differ. The index of
 * each dimensions value is made on demand through `agw_vector_index` (SECURITY DEFINER, so the
 * application role can ask for it without owning the table; the name and cast are built from an int). */
export const PGVECTOR_SCHEMA = `
CREATE TABLE IF NOT EXISTS chunk_embeddings (
  workspace_id text NOT NULL, doc_id text NOT NULL, chunk_no integer NOT NULL,
  model text NOT NULL, dimensions integer NOT NULL, source_id text NOT NULL, source_type text NOT NULL,
  embedding vector NOT NULL,
  PRIMARY KEY (workspace_id, doc_id, chunk_no),
  FOREIGN KEY (workspace_id, doc_id, chunk_no) REFERENCES chunk_vectors (workspace_id, doc_id, chunk_no) ON DELETE CASCADE);
CREATE INDEX IF NOT EXISTS chunk_embeddings_space ON chunk_embeddings (workspace_id, model, dimensions);
CREATE TABLE IF NOT EXISTS vector_twins_filled (workspace_id text PRIMARY KEY, epoch bigint NOT NULL);
${workspaceIsolation('chunk_embeddings', 'vector_twins_filled')}
CREATE OR REPLACE FUNCTION agw_drop_stale_twins() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM chunk_embeddings e USING changed c
  WHERE e.workspace_id = c.workspace_id AND e.doc_id = c.doc_id AND e.chunk_no = c.chunk_no;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS chunk_vectors_drop_stale_twins ON chunk_vectors;
CREATE TRIGGER chunk_vectors_drop_stale_twins AFTER UPDATE ON chunk_vectors
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION agw_drop_stale_twins();
CREATE OR REPLACE FUNCTION agw_vector_index(dims integer) RETURNS void LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = ${'$'}{schema}, pg_catalog AS $$
BEGIN
  IF dims < 1 OR dims > ${MAX_INDEXED_DIMENSIONS} THEN RETURN; END IF;
  EXECUTE format('CREATE INDEX IF NOT EXISTS chunk_embeddings_hnsw_%s ON chunk_embeddings USING hnsw ((embedding::vector(%s)) vector_cosine_ops) WHERE dimensions = %s', dims, dims, dims);
END $$;
`;

/** The schema statements for the current schema (the index function pins its search_path). */
export function pgvectorSchema(schema: string): string {
  return PGVECTOR_SCHEMA.replace('${schema}', schema);
}

/** Tries to make pgvector usable in this database (extension, then twin schema); `undefined` when it
 * is, else why not. Needs a superuser for the extension (it is not a trusted one) and the table owner
 * for the schema, unless both are already there. */
export async function preparePgvector(client: pg.ClientBase): Promise<string | undefined> {
  try {
    await client.query('CREATE EXTENSION IF NOT EXISTS vector');
  } catch (error) {
    return `CREATE EXTENSION vector failed: ${(error as Error).message}`;
  }
  const { rows } = await client.query<{ ready: boolean; schema: string }>(
    `SELECT to_regclass('chunk_embeddings') IS NOT NULL AND to_regclass('vector_twins_filled') IS NOT NULL
       AND to_regprocedure('agw_vector_index(integer)') IS NOT NULL AS ready, current_schema() AS schema`,
  );
  if (rows[0]?.ready === true) return undefined;
  try {
    await client.query(pgvectorSchema(client.escapeIdentifier(rows[0]?.schema ?? 'public')));
    return undefined;
  } catch (error) {
    return `creating the pgvector tables failed: ${(error as Error).message}`;
  }
}

/** Whether the application role can use the twin schema (tables and the index function). */
export async function pgvectorUsable(client: pg.ClientBase): Promise<string | undefined> {
  const { rows } = await client.query<{ usable: boolean | null }>(
    `SELECT has_table_privilege('chunk_embeddings', 'SELECT, INSERT, UPDATE, DELETE')
       AND has_table_privilege('vector_twins_filled', 'SELECT, INSERT, UPDATE')
       AND has_function_privilege('agw_vector_index(integer)', 'EXECUTE') AS usable
     FROM pg_extension WHERE extname = 'vector'
       AND to_regclass('chunk_embeddings') IS NOT NULL AND to_regclass('vector_twins_filled') IS NOT NULL`,
  );
  const usable = rows[0]?.usable;
  if (usable === undefined) return 'the vector extension or the chunk_embeddings table is missing';
  return usable === true ? undefined : 'the application role may not use chunk_embeddings';
}

/** A vector as pgvector's text input; shortest float64 text of a float32 parses back to the same float32. */
function vectorText(vector: Float32Array): string {
  return `[${vector.join(',')}]`;
}

/** Writes the twins of the rows `chunk_vectors` now holds for these chunks (after its upsert, in the
 * same transaction, so the trigger of that upsert has already run). */
export async function putTwins(
  client: pg.PoolClient,
  workspaceId: string,
  space: EmbeddingSpace,
  rows: readonly { docId: string; chunkNo: number; unit: Float32Array }[],
): Promise<void> {
  await client.query(
    `INSERT INTO chunk_embeddings (workspace_id, doc_id, chunk_no, model, dimensions, source_id, source_type, embedding)
     SELECT v.workspace_id, v.doc_id, v.chunk_no, v.model, v.dimensions, c.source_id, c.source_type, i.embedding::vector
     FROM unnest($2::text[], $3::int[], $4::text[]) AS i (doc_id, chunk_no, embedding)
     JOIN chunk_vectors v ON v.workspace_id = $1 AND v.doc_id = i.doc_id AND v.chunk_no = i.chunk_no
       AND v.model = $5 AND v.dimensions = $6
     JOIN chunks c ON c.workspace_id = $1 AND c.doc_id = i.doc_id AND c.chunk_no = i.chunk_no
     ON CONFLICT (workspace_id, doc_id, chunk_no) DO UPDATE SET model = excluded.model,
       dimensions = excluded.dimensions, source_id = excluded.source_id, source_type = excluded.source_type,
       embedding = excluded.embedding`,
    [
      workspaceId,
      rows.map((r) => r.docId),
      rows.map((r) => r.chunkNo),
      rows.map((r) => vectorText(r.unit)),
      space.model,
      space.dimensions,
    ],
  );
}

/** After a pgvector-mode write that left every vector with its twin (and after `bumpEpoch`): the
 * fill mark follows the epoch when it was current before this write. Writers are serialised by the
 * epoch row they just locked, so "current before" is exact. */
export async function advanceFillMark(client: pg.PoolClient, workspaceId: string): Promise<void> {
  await client.query(
    `UPDATE vector_twins_filled f SET epoch = e.epoch FROM vector_epochs e
     WHERE f.workspace_id = $1 AND e.workspace_id = $1 AND f.epoch = e.epoch - 1`,
    [workspaceId],
  );
}

const FILL_BATCH = 2000;

/** Gives every vector of the workspace its twin, from the bytea, then marks the epoch read first as
 * filled: a write committed after that read moved the epoch, so the mark can only be too old (one
 * more check), never claim a twin that is missing. */
async function fillTwins(client: pg.PoolClient, workspaceId: string): Promise<number> {
  const { rows: epochs } = await client.query<Row>(
    'SELECT epoch FROM vector_epochs WHERE workspace_id = $1',
    [workspaceId],
  );
  const epoch = Number(epochs[0]?.['epoch'] ?? 0);
  let filled = 0;
  for (;;) {
    const { rows } = await client.query<{
      doc_id: string;
      chunk_no: number;
      dimensions: number;
      vector: Buffer;
    }>(
      `SELECT v.doc_id, v.chunk_no, v.dimensions, v.vector FROM chunk_vectors v
       WHERE v.workspace_id = $1 AND NOT EXISTS (SELECT 1 FROM chunk_embeddings e
         WHERE e.workspace_id = v.workspace_id AND e.doc_id = v.doc_id AND e.chunk_no = v.chunk_no)
       LIMIT ${FILL_BATCH}`,
      [workspaceId],
    );
    if (rows.length === 0) break;
    const texts = rows.map((r) =>
      vectorText(
        new Float32Array(
          r.vector.buffer.slice(r.vector.byteOffset, r.vector.byteOffset + r.vector.byteLength),
        ),
      ),
    );
    await client.query(
      `INSERT INTO chunk_embeddings (workspace_id, doc_id, chunk_no, model, dimensions, source_id, source_type, embedding)
       SELECT v.workspace_id, v.doc_id, v.chunk_no, v.model, v.dimensions, c.source_id, c.source_type, i.embedding::vector
       FROM unnest($2::text[], $3::int[], $4::text[]) AS i (doc_id, chunk_no, embedding)
       JOIN chunk_vectors v ON v.workspace_id = $1 AND v.doc_id = i.doc_id AND v.chunk_no = i.chunk_no
       JOIN chunks c ON c.workspace_id = $1 AND c.doc_id = i.doc_id AND c.chunk_no = i.chunk_no
       ON CONFLICT (workspace_id, doc_id, chunk_no) DO NOTHING`,
      [workspaceId, rows.map((r) => r.doc_id), rows.map((r) => r.chunk_no), texts],
    );
    filled += rows.length;
    if (rows.length < FILL_BATCH) break;
  }
  await client.query(
    `INSERT INTO vector_twins_filled (workspace_id, epoch) VALUES ($1, $2)
     ON CONFLICT (workspace_id) DO UPDATE SET epoch = excluded.epoch`,
    [workspaceId, epoch],
  );
  return filled;
}

/** Runs work in a transaction scoped to the workspace (row-level security reads `agw.workspace`). */
type Scoped = <T>(work: (client: pg.PoolClient) => Promise<T>) => Promise<T>;

/** Nearest chunks by cosine through the HNSW index of the space's length, in one round trip: the
 * scoped transaction as one simple-protocol string (literals escaped by the driver). The index scan
 * is iterative (pgvector 0.8) so the workspace and source filters, applied to what the index yields,
 * do not starve the result; its relaxed order is re-sorted exactly here. When the scan still returns
 * fewer than `limit` rows (the filters left too few within hnsw.max_scan_tuples), an exact scan of
 * the workspace's space answers instead. The first statement says whether every vector has its twin. */
export async function pgvectorSearch(
  pool: pg.Pool,
  scoped: Scoped,
  workspaceId: string,
  indexed: (dimensions: number) => Promise<void>,
  filters: SearchFilters,
  query: Float32Array,
  space: EmbeddingSpace,
  limit: number,
): Promise<VectorHit[]> {
  const unit = unitVector(query, space);
  await indexed(space.dimensions);
  let hits = await rankedQuery(pool, workspaceId, filters, unit, space, limit, true);
  if (hits === undefined) {
    await scoped((client) => fillTwins(client, workspaceId));
    hits = (await rankedQuery(pool, workspaceId, filters, unit, space, limit, true)) ?? [];
  }
  if (hits.length < limit)
    hits = (await rankedQuery(pool, workspaceId, filters, unit, space, limit, false)) ?? [];
  return hits;
}

/** The ranked hits, or `undefined` when some vector of the workspace lacks its twin. */
async function rankedQuery(
  pool: pg.Pool,
  workspaceId: string,
  filters: SearchFilters,
  unit: Float32Array,
  space: EmbeddingSpace,
  limit: number,
  useIndex: boolean,
): Promise<VectorHit[] | undefined> {
  const client = await pool.connect();
  try {
    const lit = (value: string) => client.escapeLiteral(value);
    const ws = lit(workspaceId);
    const dims = Math.trunc(space.dimensions);
    const q = `${lit(vectorText(unit))}::vector(${dims})`;
    // The index is on the cast expression; without the cast the planner cannot use it (exact scan).
    const distance = useIndex ? `e.embedding::vector(${dims}) <=> ${q}` : `e.embedding <=> ${q}`;
    const sources = `ARRAY[${filters.allowedSourceIds.map(lit).join(',')}]::text[]`;
    const efSearch = Math.min(1000, Math.max(40, limit * 2));
    const results = (await client.query(
      `BEGIN;
       SELECT set_config('agw.workspace', ${ws}, true), set_config('hnsw.ef_search', '${efSearch}', true),
         set_config('hnsw.iterative_scan', 'relaxed_order', true);
       SELECT (SELECT epoch FROM vector_epochs WHERE workspace_id = ${ws})
         IS NOT DISTINCT FROM (SELECT epoch FROM vector_twins_filled WHERE workspace_id = ${ws}) AS filled;
       SELECT e.doc_id, e.chunk_no, ${distance} AS distance FROM chunk_embeddings e
       WHERE e.workspace_id = ${ws} AND e.model = ${lit(space.model)} AND e.dimensions = ${dims}
         AND e.source_id = ANY(${sources})
         ${filters.sourceId === undefined ? '' : `AND e.source_id = ${lit(filters.sourceId)}`}
         ${filters.sourceType === undefined ? '' : `AND e.source_type = ${lit(filters.sourceType)}`}
       ORDER BY ${distance} LIMIT ${Math.trunc(limit)};
       COMMIT`,
    )) as unknown as pg.QueryResult<Row>[];
    if (results[2]?.rows[0]?.['filled'] !== true) return undefined;
    const top = new TopHits(limit);
    for (const row of results[3]?.rows ?? [])
      top.offer({
        docId: String(row['doc_id']),
        chunkNo: Number(row['chunk_no']),
        similarity: 1 - Number(row['distance']),
      });
    return top.sorted();
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
