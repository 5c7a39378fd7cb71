// Chunk vectors in the embedded store (issue 22): one row per chunk in `chunk_vectors`, keyed like
// the chunk, the unit-length float32 vector as a BLOB with the model and length it was made with.
// Search runs in JS over the workspace's vectors of the query's space, held as one matrix with an
// approximate index above a size threshold (vector-cache.ts), reloaded when the workspace's vector
// epoch moved: every write that adds or removes a vector bumps it in the same transaction, whichever
// process shares the file.
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type {
  ChunkVector,
  EmbeddingSpace,
  SearchFilters,
  UnembeddedChunk,
  VectorHit,
} from './knowledge-store.js';
import type { Row } from './store-rows.js';
import type { HeldVectors, VectorCache } from './vector-cache.js';
import { unitVector, vectorBytes } from './vector-math.js';
import { VectorMatrix, type MatrixRow } from './vector-matrix.js';

export const VECTOR_SCHEMA = `
CREATE TABLE IF NOT EXISTS chunk_vectors (
  workspace_id TEXT NOT NULL, doc_id TEXT NOT NULL, chunk_no INTEGER NOT NULL,
  model TEXT NOT NULL, dimensions INTEGER NOT NULL, vector BLOB NOT NULL,
  PRIMARY KEY (workspace_id, doc_id, chunk_no));
CREATE INDEX IF NOT EXISTS chunk_vectors_space ON chunk_vectors (workspace_id, model, dimensions);
CREATE TABLE IF NOT EXISTS vector_epochs (workspace_id TEXT PRIMARY KEY, epoch INTEGER NOT NULL);
`;

export interface VectorStatements {
  put: StatementSync;
  deleteForDocument: StatementSync;
  missing: StatementSync;
  progress: StatementSync;
  count: StatementSync;
  rows: StatementSync;
  epoch: StatementSync;
  bump: StatementSync;
}

export function prepareVectors(db: DatabaseSync): VectorStatements {
  return {
    // Only onto a chunk that exists, of the document version the vector was made for.
    put: db.prepare(
      `INSERT INTO chunk_vectors (workspace_id, doc_id, chunk_no, model, dimensions, vector)
       SELECT c.workspace_id, c.doc_id, c.chunk_no, ?, ?, ?
       FROM chunks c JOIN documents d ON d.workspace_id = c.workspace_id AND d.doc_id = c.doc_id
       WHERE c.workspace_id = ? AND c.doc_id = ? AND c.chunk_no = ? AND d.content_hash = ?
       ON CONFLICT (workspace_id, doc_id, chunk_no) DO UPDATE SET
         model = excluded.model, dimensions = excluded.dimensions, vector = excluded.vector`,
    ),
    deleteForDocument: db.prepare('DELETE FROM chunk_vectors WHERE workspace_id = ? AND doc_id = ?'),
    missing: db.prepare(
      `SELECT c.doc_id, c.chunk_no, c.text, d.title, d.content_hash
       FROM documents d JOIN chunks c ON c.workspace_id = d.workspace_id AND c.doc_id = d.doc_id
       LEFT JOIN chunk_vectors v ON v.workspace_id = c.workspace_id AND v.doc_id = c.doc_id
         AND v.chunk_no = c.chunk_no AND v.model = ? AND v.dimensions = ?
       WHERE d.workspace_id = ? AND d.source_id = ? AND v.doc_id IS NULL
       ORDER BY c.doc_id, c.chunk_no LIMIT ?`,
    ),
    progress: db.prepare(
      `SELECT count(*) AS chunks, count(v.doc_id) AS embedded
       FROM documents d JOIN chunks c ON c.workspace_id = d.workspace_id AND c.doc_id = d.doc_id
       LEFT JOIN chunk_vectors v ON v.workspace_id = c.workspace_id AND v.doc_id = c.doc_id
         AND v.chunk_no = c.chunk_no AND v.model = ? AND v.dimensions = ?
       WHERE d.workspace_id = ? AND d.source_id = ?`,
    ),
    count: db.prepare(
      'SELECT count(*) AS n FROM chunk_vectors WHERE workspace_id = ? AND model = ? AND dimensions = ?',
    ),
    // With the document's source and type, for the text search's filters at search time.
    rows: db.prepare(
      `SELECT v.doc_id, v.chunk_no, v.vector, d.source_id, d.source_type
       FROM chunk_vectors v JOIN documents d ON d.workspace_id = v.workspace_id AND d.doc_id = v.doc_id
       WHERE v.workspace_id = ? AND v.model = ? AND v.dimensions = ?`,
    ),
    epoch: db.prepare('SELECT epoch FROM vector_epochs WHERE workspace_id = ?'),
    bump: db.prepare(
      `INSERT INTO vector_epochs (workspace_id, epoch) VALUES (?, 1)
       ON CONFLICT (workspace_id) DO UPDATE SET epoch = epoch + 1`,
    ),
  };
}

/** The vector half of one workspace's SQLite store; the caller runs writes in its transaction. */
export class SqliteVectors {
  constructor(
    private readonly statements: VectorStatements,
    private readonly workspaceId: string,
    /** The last space searched, in memory (one matrix per workspace). */
    private readonly cache: VectorCache,
  ) {}

  /** Removes a document's vectors (with its chunks, in the caller's transaction). */
  removeForDocument(docId: string): void {
    const { changes } = this.statements.deleteForDocument.run(this.workspaceId, docId);
    if (Number(changes) > 0) this.statements.bump.run(this.workspaceId);
  }

  /** Checks every vector first, so a bad one stores nothing. */
  put(space: EmbeddingSpace, vectors: readonly ChunkVector[]): { run(): number } {
    const rows = vectors.map((v) => ({ ...v, unit: unitVector(v.vector, space) }));
    return {
      run: () => {
        let stored = 0;
        for (const row of rows) {
          const result = this.statements.put.run(
            space.model,
            space.dimensions,
            vectorBytes(row.unit),
            this.workspaceId,
            row.docId,
            row.chunkNo,
            row.contentHash,
          );
          stored += Number(result.changes);
        }
        if (stored > 0) this.statements.bump.run(this.workspaceId);
        return stored;
      },
    };
  }

  missing(sourceId: string, space: EmbeddingSpace, limit: number): UnembeddedChunk[] {
    const rows = this.statements.missing.all(
      space.model,
      space.dimensions,
      this.workspaceId,
      sourceId,
      limit,
    ) as Row[];
    return rows.map((row) => ({
      docId: String(row['doc_id']),
      chunkNo: Number(row['chunk_no']),
      contentHash: String(row['content_hash']),
      title: String(row['title']),
      text: String(row['text']),
    }));
  }

  progress(sourceId: string, space: EmbeddingSpace): { chunks: number; embedded: number } {
    const row = this.statements.progress.get(
      space.model,
      space.dimensions,
      this.workspaceId,
      sourceId,
    ) as Row;
    return { chunks: Number(row['chunks']), embedded: Number(row['embedded']) };
  }

  search(filters: SearchFilters, query: Float32Array, space: EmbeddingSpace, limit: number): VectorHit[] {
    if (filters.allowedSourceIds.length === 0 || limit <= 0) return [];
    const unit = unitVector(query, space);
    return this.held(space).search(filters, unit, limit);
  }

  /** The matrix of `space`, reloaded when another space is asked for or the epoch moved. Reading the
   * epoch before the rows means a write in between only costs one more reload, never stale hits. */
  private held(space: EmbeddingSpace): HeldVectors {
    const row = this.statements.epoch.get(this.workspaceId) as Row | undefined;
    const epoch = Number(row?.['epoch'] ?? 0);
    const held = this.cache.current(epoch, space);
    if (held !== undefined) return held;
    const count = Number(
      (this.statements.count.get(this.workspaceId, space.model, space.dimensions) as Row)['n'],
    );
    const rows = this.statements.rows.iterate(
      this.workspaceId,
      space.model,
      space.dimensions,
    ) as Iterable<Row>;
    const matrixRows = (function* (): Iterable<MatrixRow> {
      for (const r of rows)
        yield {
          docId: String(r['doc_id']),
          chunkNo: Number(r['chunk_no']),
          sourceId: String(r['source_id']),
          sourceType: String(r['source_type']),
          bytes: r['vector'] as Uint8Array,
        };
    })();
    return this.cache.install(new VectorMatrix(space, epoch, matrixRows, count));
  }
}
