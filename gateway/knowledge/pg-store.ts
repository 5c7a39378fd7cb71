// The cluster KnowledgeStore (D7): PostgreSQL full-text search, one shared index for every replica.
// A stored generated tsvector (title weighted A, body B) with a GIN index, websearch_to_tsquery with
// OR, ranked by ts_rank(…, 1) (knowledge doc §1.2: normalisation 1 ranked best). Workspace isolation
// is enforced by the SQL (`workspace_id` in every statement) and again by row-level security: every
// operation runs in a transaction that sets `agw.workspace`, and the policies show nothing else.
// Vectors are ranked in gateway memory (pg-vectors.ts) or by pgvector (pgvector-search.ts).
import pg from 'pg';
import { indexedTitle } from './chunk-headings.js';
import { workspaceIsolation } from './pg-isolation.js';
import type {
  ChunkInput,
  ChunkKey,
  ChunkVector,
  DocumentInput,
  EmbeddingSpace,
  KnowledgeStore,
  SearchFilters,
  SearchHit,
  StoredChunk,
  StoredDocument,
  UnembeddedChunk,
  VectorHit,
  WorkspaceStore,
} from './knowledge-store.js';
import * as vectors from './pg-vectors.js';
import {
  advanceFillMark,
  pgvectorSearch,
  pgvectorUsable,
  preparePgvector,
  type PgVectorSearch,
} from './pgvector-search.js';
import { VectorCaches, type VectorCache, type VectorIndexOptions } from './vector-cache.js';
import { chunkFromRow, documentFromRow, hitFromRow, inKeyOrder, type Row } from './store-rows.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS documents (
  workspace_id text NOT NULL, doc_id text NOT NULL, source_id text NOT NULL, source_type text NOT NULL,
  external_id text NOT NULL, title text NOT NULL, url text, updated_at text, content_hash text NOT NULL,
  body_chars integer NOT NULL, chunk_count integer NOT NULL,
  PRIMARY KEY (workspace_id, doc_id));
CREATE INDEX IF NOT EXISTS documents_source ON documents (workspace_id, source_id);
CREATE TABLE IF NOT EXISTS chunks (
  id bigserial PRIMARY KEY, workspace_id text NOT NULL, doc_id text NOT NULL, chunk_no integer NOT NULL,
  source_id text NOT NULL, source_type text NOT NULL,
  title text NOT NULL, text text NOT NULL, char_start integer NOT NULL, char_end integer NOT NULL,
  tsv tsvector GENERATED ALWAYS AS (setweight(to_tsvector('english', title), 'A') || setweight(to_tsvector('english', text), 'B')) STORED,
  UNIQUE (workspace_id, doc_id, chunk_no));
CREATE INDEX IF NOT EXISTS chunks_tsv ON chunks USING gin (tsv);
-- Issue 39: the chunk's Markdown heading path (chunks.title indexes it after the document's title).
ALTER TABLE chunks ADD COLUMN IF NOT EXISTS heading text;
${workspaceIsolation('documents', 'chunks')}
`;

/** Under row-level security PostgreSQL only uses an index for an operator whose function is
 * LEAKPROOF, and the full-text match `@@` (ts_match_vq) is not marked so: every search would scan
 * every chunk. The function reveals nothing but its boolean result, so a superuser may mark it. */
const LEAKPROOF_MATCH = 'ALTER FUNCTION pg_catalog.ts_match_vq(tsvector, tsquery) LEAKPROOF';

/** Creates the schema and policies (as the owner) and grants the application role what it needs.
 * As a superuser it also marks the full-text match LEAKPROOF (see LEAKPROOF_MATCH). Unless vector
 * search is `memory` it also tries to set up pgvector (a superuser can create the extension); the
 * answer is why pgvector could not be set up, or `undefined`. */
export async function migratePostgres(
  admin: pg.ClientConfig,
  appRole: string | undefined,
  vectorSearch: PgVectorSearch = 'auto',
): Promise<string | undefined> {
  const client = new pg.Client(admin);
  await client.connect();
  try {
    await client.query(SCHEMA);
    await client.query(vectors.VECTOR_SCHEMA);
    const pgvector = vectorSearch === 'memory' ? 'not requested' : await preparePgvector(client);
    const { rows } = await client.query<{ superuser: boolean }>(
      "SELECT current_setting('is_superuser') = 'on' AS superuser",
    );
    if (rows[0]?.superuser === true) await client.query(LEAKPROOF_MATCH);
    if (appRole !== undefined) {
      const role = client.escapeIdentifier(appRole);
      await client.query(
        `GRANT SELECT, INSERT, UPDATE, DELETE ON documents, chunks, chunk_vectors, vector_epochs TO ${role}; GRANT USAGE ON SEQUENCE chunks_id_seq TO ${role}`,
      );
      // Whenever the twin schema exists, also in memory mode: its trigger deletes stale twins.
      const twins = await client.query("SELECT 1 WHERE to_regclass('chunk_embeddings') IS NOT NULL");
      if (twins.rows.length > 0)
        await client.query(
          `GRANT SELECT, INSERT, UPDATE, DELETE ON chunk_embeddings, vector_twins_filled TO ${role}; GRANT EXECUTE ON FUNCTION agw_vector_index(integer) TO ${role}`,
        );
    }
    return pgvector;
  } finally {
    await client.end();
  }
}

/** What a workspace store needs to rank vectors with pgvector: the HNSW index of a length, made once. */
interface PgvectorPath {
  readonly indexed: (dimensions: number) => Promise<void>;
}

class PgWorkspaceStore implements WorkspaceStore {
  constructor(
    private readonly pool: pg.Pool,
    readonly workspaceId: string,
    private readonly vectorCache: VectorCache,
    private readonly pgvector: PgvectorPath | undefined,
  ) {}

  /** In pgvector mode, after `bumpEpoch`: a write that left every twin in place moves the fill mark. */
  private async keptTwins(client: pg.PoolClient): Promise<void> {
    if (this.pgvector !== undefined) await advanceFillMark(client, this.workspaceId);
  }

  /** Runs work in a transaction scoped to this workspace (row-level security reads `agw.workspace`). */
  private async scoped<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query("SELECT set_config('agw.workspace', $1, true)", [this.workspaceId]);
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  upsertDocument(document: DocumentInput, chunks: readonly ChunkInput[]): Promise<void> {
    return this.scoped(async (client) => {
      const ws = this.workspaceId;
      const hadVectors = await vectors.removeForDocuments(client, ws, [document.docId]);
      await client.query('DELETE FROM chunks WHERE workspace_id = $1 AND doc_id = $2', [ws, document.docId]);
      await client.query(
        `INSERT INTO documents (workspace_id, doc_id, source_id, source_type, external_id, title, url, updated_at, content_hash, body_chars, chunk_count)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
         ON CONFLICT (workspace_id, doc_id) DO UPDATE SET source_id = excluded.source_id, source_type = excluded.source_type,
           external_id = excluded.external_id, title = excluded.title, url = excluded.url, updated_at = excluded.updated_at,
           content_hash = excluded.content_hash, body_chars = excluded.body_chars, chunk_count = excluded.chunk_count`,
        [
          ws,
          document.docId,
          document.sourceId,
          document.sourceType,
          document.externalId,
          document.title,
          document.url ?? null,
          document.updatedAt ?? null,
          document.contentHash,
          document.bodyChars,
          chunks.length,
        ],
      );
      if (chunks.length > 0) {
        await client.query(
          `INSERT INTO chunks (workspace_id, doc_id, source_id, source_type, chunk_no, title, text, char_start, char_end, heading)
           SELECT $1, $2, $3, $4, * FROM unnest($5::int[], $6::text[], $7::text[], $8::int[], $9::int[], $10::text[])`,
          [
            ws,
            document.docId,
            document.sourceId,
            document.sourceType,
            chunks.map((c) => c.chunkNo),
            chunks.map((c) => indexedTitle(document.title, c.heading)),
            chunks.map((c) => c.text),
            chunks.map((c) => c.charStart),
            chunks.map((c) => c.charEnd),
            chunks.map((c) => c.heading ?? null),
          ],
        );
      }
      if (hadVectors) {
        await vectors.bumpEpoch(client, ws);
        await this.keptTwins(client);
      }
    });
  }

  documentHashes(sourceId: string): Promise<Map<string, string>> {
    return this.scoped(async (client) => {
      const { rows } = await client.query<Row>(
        'SELECT doc_id, content_hash FROM documents WHERE workspace_id = $1 AND source_id = $2',
        [this.workspaceId, sourceId],
      );
      return new Map(rows.map((row) => [String(row['doc_id']), String(row['content_hash'])]));
    });
  }

  deleteDocuments(sourceId: string, docIds: readonly string[]): Promise<number> {
    if (docIds.length === 0) return Promise.resolve(0);
    return this.scoped(async (client) => {
      const { rows } = await client.query<Row>(
        'DELETE FROM documents WHERE workspace_id = $1 AND source_id = $2 AND doc_id = ANY($3) RETURNING doc_id',
        [this.workspaceId, sourceId, docIds],
      );
      const removed = rows.map((row) => String(row['doc_id']));
      if (removed.length > 0) {
        const hadVectors = await vectors.removeForDocuments(client, this.workspaceId, removed);
        await client.query('DELETE FROM chunks WHERE workspace_id = $1 AND doc_id = ANY($2)', [
          this.workspaceId,
          removed,
        ]);
        if (hadVectors) {
          await vectors.bumpEpoch(client, this.workspaceId);
          await this.keptTwins(client);
        }
      }
      return removed.length;
    });
  }

  search(terms: readonly string[], filters: SearchFilters, limit: number): Promise<SearchHit[]> {
    if (terms.length === 0 || filters.allowedSourceIds.length === 0) return Promise.resolve([]);
    return this.scoped(async (client) => {
      // Rank ids only (a narrow top-N sort over the GIN matches, with the source filters on the chunk
      // row itself), then fetch text and document fields for the page alone.
      const { rows } = await client.query<Row>(
        `WITH top AS (
           SELECT c.id, ts_rank(c.tsv, q, 1) AS score
           FROM websearch_to_tsquery('english', $2) AS q, chunks c
           WHERE c.workspace_id = $1 AND c.tsv @@ q AND c.source_id = ANY($3)
             AND ($4::text IS NULL OR c.source_id = $4) AND ($5::text IS NULL OR c.source_type = $5)
           ORDER BY score DESC, c.id LIMIT $6)
         SELECT c.doc_id, c.chunk_no, c.text, c.heading, d.title, d.url, d.source_id, d.source_type, d.updated_at, top.score
         FROM top JOIN chunks c ON c.id = top.id
         JOIN documents d ON d.workspace_id = c.workspace_id AND d.doc_id = c.doc_id
         WHERE c.workspace_id = $1
         ORDER BY top.score DESC, top.id`,
        [
          this.workspaceId,
          terms.join(' or '),
          filters.allowedSourceIds,
          filters.sourceId ?? null,
          filters.sourceType ?? null,
          limit,
        ],
      );
      return rows.map((row) => hitFromRow(row, Number(row['score'])));
    });
  }

  getDocument(docId: string): Promise<StoredDocument | undefined> {
    return this.scoped(async (client) => {
      const { rows } = await client.query<Row>(
        'SELECT * FROM documents WHERE workspace_id = $1 AND doc_id = $2',
        [this.workspaceId, docId],
      );
      const row = rows[0];
      if (row === undefined) return undefined;
      return documentFromRow(row);
    });
  }

  getChunks(docId: string, fromChunk: number, limit: number): Promise<StoredChunk[]> {
    return this.scoped(async (client) => {
      const { rows } = await client.query<Row>(
        'SELECT chunk_no, text, char_start, char_end FROM chunks WHERE workspace_id = $1 AND doc_id = $2 AND chunk_no >= $3 ORDER BY chunk_no LIMIT $4',
        [this.workspaceId, docId, fromChunk, limit],
      );
      return rows.map((row) => chunkFromRow(docId, row));
    });
  }

  countDocuments(sourceId: string): Promise<number> {
    return this.scoped(async (client) => {
      const { rows } = await client.query<Row>(
        'SELECT count(*)::int AS n FROM documents WHERE workspace_id = $1 AND source_id = $2',
        [this.workspaceId, sourceId],
      );
      return Number(rows[0]?.['n'] ?? 0);
    });
  }

  // Vectors go with their chunks (a foreign key cascades), but are removed explicitly first so the
  // workspace's vector epoch moves in the same transaction (pg-vectors.ts).
  putVectors(space: EmbeddingSpace, batch: readonly ChunkVector[]): Promise<number> {
    return this.scoped((client) =>
      vectors.putVectors(client, this.workspaceId, space, batch, this.pgvector !== undefined),
    );
  }

  chunksWithoutVector(sourceId: string, space: EmbeddingSpace, limit: number): Promise<UnembeddedChunk[]> {
    return this.scoped((client) =>
      vectors.chunksWithoutVector(client, this.workspaceId, sourceId, space, limit),
    );
  }

  vectorProgress(sourceId: string, space: EmbeddingSpace): Promise<{ chunks: number; embedded: number }> {
    return this.scoped((client) => vectors.vectorProgress(client, this.workspaceId, sourceId, space));
  }

  chunkHits(filters: SearchFilters, keys: readonly ChunkKey[]): Promise<SearchHit[]> {
    if (keys.length === 0 || filters.allowedSourceIds.length === 0) return Promise.resolve([]);
    return this.scoped(async (client) => {
      const { rows } = await client.query<Row>(
        `SELECT c.doc_id, c.chunk_no, c.text, c.heading, d.title, d.url, d.source_id, d.source_type, d.updated_at
         FROM unnest($2::text[], $3::int[]) AS k (doc_id, chunk_no)
         JOIN chunks c ON c.workspace_id = $1 AND c.doc_id = k.doc_id AND c.chunk_no = k.chunk_no
         JOIN documents d ON d.workspace_id = c.workspace_id AND d.doc_id = c.doc_id
         WHERE c.source_id = ANY($4) AND ($5::text IS NULL OR c.source_id = $5)
           AND ($6::text IS NULL OR c.source_type = $6)`,
        [
          this.workspaceId,
          keys.map((key) => key.docId),
          keys.map((key) => key.chunkNo),
          filters.allowedSourceIds,
          filters.sourceId ?? null,
          filters.sourceType ?? null,
        ],
      );
      return inKeyOrder(
        keys,
        rows.map((row) => hitFromRow(row, 0)),
      );
    });
  }

  vectorSearch(
    filters: SearchFilters,
    query: Float32Array,
    space: EmbeddingSpace,
    limit: number,
  ): Promise<VectorHit[]> {
    if (filters.allowedSourceIds.length === 0 || limit <= 0) return Promise.resolve([]);
    if (this.pgvector !== undefined)
      return pgvectorSearch(
        this.pool,
        (work) => this.scoped(work),
        this.workspaceId,
        this.pgvector.indexed,
        filters,
        query,
        space,
        limit,
      );
    return vectors.vectorSearch(
      this.pool,
      (work) => this.scoped(work),
      this.workspaceId,
      this.vectorCache,
      filters,
      query,
      space,
      limit,
    );
  }
}

export class PgKnowledgeStore implements KnowledgeStore {
  readonly kind = 'postgresql' as const;
  /** Shared with the PgSourceLock of the same process. */
  readonly pool: pg.Pool;
  /** Each workspace's vectors in gateway memory, reloaded when its vector epoch moved. */
  private readonly vectorCaches: VectorCaches;
  private readonly pgvector: PgvectorPath | undefined;
  /** The HNSW index of each length, asked for once per process (pgvector mode). */
  private readonly indexes = new Map<number, Promise<void>>();

  /** `vectorIndex`: when in-memory searches go through the approximate index (vector-cache.ts).
   * `vectorSearch`: where vectors are ranked, as `choosePgVectorSearch` resolved it; `pgvector`
   * needs the twin schema (migratePostgres). */
  constructor(
    config: pg.PoolConfig,
    vectorIndex?: VectorIndexOptions,
    readonly vectorSearch: 'pgvector' | 'memory' = 'memory',
  ) {
    this.pool = new pg.Pool({ max: 8, ...config });
    this.vectorCaches = new VectorCaches(vectorIndex);
    this.pgvector = vectorSearch === 'pgvector' ? { indexed: (d) => this.indexed(d) } : undefined;
  }

  workspace(workspaceId: string): WorkspaceStore {
    if (workspaceId === '') throw new Error('a workspace is required');
    return new PgWorkspaceStore(this.pool, workspaceId, this.vectorCaches.of(workspaceId), this.pgvector);
  }

  private indexed(dimensions: number): Promise<void> {
    let made = this.indexes.get(dimensions);
    if (made === undefined) {
      // Two processes may race on CREATE INDEX IF NOT EXISTS; the loser's error is retried once.
      const create = () => this.pool.query('SELECT agw_vector_index($1)', [dimensions]).then(() => undefined);
      made = create().catch(create);
      made.catch(() => this.indexes.delete(dimensions));
      this.indexes.set(dimensions, made);
    }
    return made;
  }

  /** Whether searches can use the GIN index under row-level security (see LEAKPROOF_MATCH). */
  async searchUsesIndex(): Promise<boolean> {
    const { rows } = await this.pool.query<{ leakproof: boolean }>(
      "SELECT proleakproof AS leakproof FROM pg_proc WHERE oid = 'pg_catalog.ts_match_vq(tsvector, tsquery)'::regprocedure",
    );
    return rows[0]?.leakproof === true;
  }

  /** Whether pgvector could be installed on this server (its files are there). */
  pgvectorAvailable(): Promise<boolean> {
    return vectors.pgvectorAvailable(this.pool);
  }

  close(): Promise<void> {
    this.vectorCaches.close();
    return this.pool.end();
  }
}

/** Resolves the configured vector search for the application role's connection: `memory` as is;
 * otherwise pgvector when the extension and twin schema are there (made now if this role may) and
 * usable, else `memory` for `auto` with the reason. `reason` never holds connection details. */
export async function choosePgVectorSearch(
  config: pg.ClientConfig,
  requested: PgVectorSearch,
): Promise<{ path: 'pgvector' | 'memory'; reason: string | undefined }> {
  if (requested === 'memory') return { path: 'memory', reason: 'configured' };
  const client = new pg.Client(config);
  await client.connect();
  try {
    const reason = (await preparePgvector(client)) ?? (await pgvectorUsable(client));
    return reason === undefined ? { path: 'pgvector', reason: undefined } : { path: 'memory', reason };
  } finally {
    await client.end();
  }
}
