// The embedded KnowledgeStore (D7): SQLite FTS5 through Node's built-in `node:sqlite`, BM25 with the
// title weighted 4× the body, porter stemming. Isolation is enforced twice: each workspace has its
// own FTS table (so a match can only ever see that workspace's chunks, and ranking statistics are
// per workspace), and every SQL statement also filters on `workspace_id`. Chunk vectors live in
// sqlite-vectors.ts and go with their chunks.
import { createHash } from 'node:crypto';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
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
import { indexedTitle } from './chunk-headings.js';
import { PRUNED_TOP_MAX, prunedRanking, provenTop } from './bm25-pruning.js';
import {
  chunkFromRow,
  documentFromRow,
  hitFromValues,
  HIT_COLUMNS,
  inKeyOrder,
  type Row,
} from './store-rows.js';
import { prepareVectors, SqliteVectors, VECTOR_SCHEMA, type VectorStatements } from './sqlite-vectors.js';
import { VectorCaches, type VectorCache, type VectorIndexOptions } from './vector-cache.js';

/** The most of the file read through a memory map (the rest, if any, through read()). */
const MMAP_BYTES = 1 << 30;

const SCHEMA = `
PRAGMA journal_mode = WAL;
PRAGMA synchronous = NORMAL;
CREATE TABLE IF NOT EXISTS documents (
  workspace_id TEXT NOT NULL, doc_id TEXT NOT NULL, source_id TEXT NOT NULL, source_type TEXT NOT NULL,
  external_id TEXT NOT NULL, title TEXT NOT NULL, url TEXT, updated_at TEXT, content_hash TEXT NOT NULL,
  body_chars INTEGER NOT NULL, chunk_count INTEGER NOT NULL,
  PRIMARY KEY (workspace_id, doc_id));
CREATE INDEX IF NOT EXISTS documents_source ON documents (workspace_id, source_id);
CREATE TABLE IF NOT EXISTS chunks (
  id INTEGER PRIMARY KEY, workspace_id TEXT NOT NULL, doc_id TEXT NOT NULL, chunk_no INTEGER NOT NULL,
  text TEXT NOT NULL, char_start INTEGER NOT NULL, char_end INTEGER NOT NULL, heading TEXT,
  UNIQUE (workspace_id, doc_id, chunk_no));
`;

/** Adds what later versions put in the schema to a database an earlier version made: chunks.heading
 * (issue 39), null for chunks indexed before it, until their document next changes. */
function migrate(db: DatabaseSync): void {
  const columns = db.prepare('SELECT name FROM pragma_table_info(?)').all('chunks') as Row[];
  if (!columns.some((column) => column['name'] === 'heading'))
    db.exec('ALTER TABLE chunks ADD COLUMN heading TEXT');
}

/** The name of a workspace's own FTS table (an identifier derived from the id, never the id itself). */
export function ftsTable(workspaceId: string): string {
  return `fts_${createHash('sha256').update(workspaceId).digest('hex').slice(0, 24)}`;
}

function quote(term: string): string {
  return `"${term.replace(/"/g, '""')}"`;
}

/** Runs synchronous driver work and reports its failure as a rejected promise, as the port promises. */
function attempt<T>(work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error('knowledge store failure'));
  }
}

/** The bound values of the `source_id IN (json) AND (? IS NULL OR …)` filter clause both hit
 * statements end with. */
function filterParams(filters: SearchFilters): (string | null)[] {
  const sourceId = filters.sourceId ?? null;
  const sourceType = filters.sourceType ?? null;
  return [JSON.stringify(filters.allowedSourceIds), sourceId, sourceId, sourceType, sourceType];
}

interface Statements {
  upsertDocument: StatementSync;
  insertChunk: StatementSync;
  chunkRowIds: StatementSync;
  deleteChunks: StatementSync;
  deleteDocument: StatementSync;
  documentSource: StatementSync;
  hashes: StatementSync;
  hitDetails: StatementSync;
  keyedHits: StatementSync;
  document: StatementSync;
  chunks: StatementSync;
  count: StatementSync;
  maxChunkId: StatementSync;
}

/** A statement whose rows come back as arrays of values: the two that read up to 200 candidate hits
 * per search skip building a keyed object per row (a few tenths of a millisecond per search at 100k
 * chunks, docs/benchmarks.md#latency-by-mode). */
function valuesOf(statement: StatementSync): StatementSync {
  statement.setReturnArrays(true);
  return statement;
}

function prepare(db: DatabaseSync): Statements {
  return {
    upsertDocument: db.prepare(
      `INSERT INTO documents (workspace_id, doc_id, source_id, source_type, external_id, title, url, updated_at, content_hash, body_chars, chunk_count)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (workspace_id, doc_id) DO UPDATE SET source_id = excluded.source_id, source_type = excluded.source_type,
         external_id = excluded.external_id, title = excluded.title, url = excluded.url, updated_at = excluded.updated_at,
         content_hash = excluded.content_hash, body_chars = excluded.body_chars, chunk_count = excluded.chunk_count`,
    ),
    insertChunk: db.prepare(
      'INSERT INTO chunks (workspace_id, doc_id, chunk_no, text, char_start, char_end, heading) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    chunkRowIds: db.prepare('SELECT id FROM chunks WHERE workspace_id = ? AND doc_id = ?'),
    deleteChunks: db.prepare('DELETE FROM chunks WHERE workspace_id = ? AND doc_id = ?'),
    deleteDocument: db.prepare(
      'DELETE FROM documents WHERE workspace_id = ? AND source_id = ? AND doc_id = ?',
    ),
    documentSource: db.prepare('SELECT source_id FROM documents WHERE workspace_id = ? AND doc_id = ?'),
    hashes: db.prepare('SELECT doc_id, content_hash FROM documents WHERE workspace_id = ? AND source_id = ?'),
    // Step two of a search: details of the ranked candidate chunks, with the caller's filters.
    // CROSS JOIN keeps the planner driving from the candidate ids (primary-key lookups), not a scan.
    hitDetails: valuesOf(
      db.prepare(
        `SELECT ${HIT_COLUMNS}, c.id
       FROM json_each(?) AS candidate CROSS JOIN chunks c ON c.id = candidate.value
       JOIN documents d ON d.workspace_id = c.workspace_id AND d.doc_id = c.doc_id
       WHERE c.workspace_id = ?
         AND d.source_id IN (SELECT value FROM json_each(?))
         AND (? IS NULL OR d.source_id = ?) AND (? IS NULL OR d.source_type = ?)`,
      ),
    ),
    // Hits named by (doc_id, chunk_no), e.g. from a vector search, with the caller's filters.
    keyedHits: valuesOf(
      db.prepare(
        `SELECT ${HIT_COLUMNS}
       FROM json_each(?) AS k CROSS JOIN chunks c
         ON c.workspace_id = ? AND c.doc_id = json_extract(k.value, '$[0]') AND c.chunk_no = json_extract(k.value, '$[1]')
       JOIN documents d ON d.workspace_id = c.workspace_id AND d.doc_id = c.doc_id
       WHERE d.source_id IN (SELECT value FROM json_each(?))
         AND (? IS NULL OR d.source_id = ?) AND (? IS NULL OR d.source_type = ?)`,
      ),
    ),
    document: db.prepare('SELECT * FROM documents WHERE workspace_id = ? AND doc_id = ?'),
    chunks: db.prepare(
      'SELECT chunk_no, text, char_start, char_end FROM chunks WHERE workspace_id = ? AND doc_id = ? AND chunk_no >= ? ORDER BY chunk_no LIMIT ?',
    ),
    count: db.prepare('SELECT count(*) AS n FROM documents WHERE workspace_id = ? AND source_id = ?'),
    // An upper bound of any workspace's FTS row count (each row is a distinct chunk id), for bm25 ceilings.
    maxChunkId: db.prepare('SELECT coalesce(max(id), 0) AS n FROM chunks'),
  };
}

interface FtsStatements {
  insert: StatementSync;
  delete: StatementSync;
  top: StatementSync;
  topWithin: StatementSync;
  matches: StatementSync;
}

function prepareFts(db: DatabaseSync, table: string): FtsStatements {
  db.exec(
    `CREATE VIRTUAL TABLE IF NOT EXISTS ${table} USING fts5(title, body, content='', contentless_delete=1, tokenize='porter unicode61')`,
  );
  return {
    insert: db.prepare(`INSERT INTO ${table} (rowid, title, body) VALUES (?, ?, ?)`),
    delete: db.prepare(`DELETE FROM ${table} WHERE rowid = ?`),
    // Step one: rank inside the FTS index only (one total order: score, then rowid). Kept as its own
    // statement because joined with bound filters the planner loses FTS5's fast path.
    top: db.prepare(
      `SELECT rowid, bm25(${table}, 4.0, 1.0) AS score FROM ${table} WHERE ${table} MATCH ? ORDER BY score, rowid LIMIT ?`,
    ),
    // The same ranking scoring only rows that hold one of the rarer terms (bm25-pruning.ts). The unary
    // plus keeps the rowid test out of FTS5's plan, so the query, and every phrase's idf, is unchanged.
    topWithin: db.prepare(
      `SELECT rowid, bm25(${table}, 4.0, 1.0) AS score FROM ${table} WHERE ${table} MATCH ?
         AND +rowid IN (SELECT rowid FROM ${table} WHERE ${table} MATCH ?) ORDER BY score, rowid LIMIT ?`,
    ),
    matches: db.prepare(`SELECT count(*) AS n FROM ${table} WHERE ${table} MATCH ?`),
  };
}

class SqliteWorkspaceStore implements WorkspaceStore {
  private readonly fts: FtsStatements;
  private readonly vectors: SqliteVectors;

  constructor(
    private readonly db: DatabaseSync,
    private readonly statements: Statements,
    vectorStatements: VectorStatements,
    readonly workspaceId: string,
    vectorCache: VectorCache,
  ) {
    this.fts = prepareFts(db, ftsTable(workspaceId));
    this.vectors = new SqliteVectors(vectorStatements, workspaceId, vectorCache);
  }

  private transaction(work: () => void): void {
    this.db.exec('BEGIN');
    try {
      work();
      this.db.exec('COMMIT');
    } catch (error) {
      this.db.exec('ROLLBACK');
      throw error;
    }
  }

  private removeChunks(docId: string): void {
    const rows = this.statements.chunkRowIds.all(this.workspaceId, docId) as Row[];
    for (const row of rows) this.fts.delete.run(row['id'] as number);
    this.statements.deleteChunks.run(this.workspaceId, docId);
    this.vectors.removeForDocument(docId);
  }

  upsertDocument(document: DocumentInput, chunks: readonly ChunkInput[]): Promise<void> {
    return attempt(() =>
      this.transaction(() => {
        this.removeChunks(document.docId);
        this.statements.upsertDocument.run(
          this.workspaceId,
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
        );
        for (const chunk of chunks) {
          const result = this.statements.insertChunk.run(
            this.workspaceId,
            document.docId,
            chunk.chunkNo,
            chunk.text,
            chunk.charStart,
            chunk.charEnd,
            chunk.heading ?? null,
          );
          this.fts.insert.run(
            result.lastInsertRowid,
            indexedTitle(document.title, chunk.heading),
            chunk.text,
          );
        }
      }),
    );
  }

  documentHashes(sourceId: string): Promise<Map<string, string>> {
    return attempt(() => {
      const rows = this.statements.hashes.all(this.workspaceId, sourceId) as Row[];
      return new Map(rows.map((row) => [String(row['doc_id']), String(row['content_hash'])]));
    });
  }

  deleteDocuments(sourceId: string, docIds: readonly string[]): Promise<number> {
    return attempt(() => {
      let removed = 0;
      this.transaction(() => {
        for (const docId of docIds) {
          // Only a document of this source is touched: another source's document keeps its chunks.
          const owner = this.statements.documentSource.get(this.workspaceId, docId) as Row | undefined;
          if (owner === undefined || owner['source_id'] !== sourceId) continue;
          this.removeChunks(docId);
          removed += Number(this.statements.deleteDocument.run(this.workspaceId, sourceId, docId).changes);
        }
      });
      return removed;
    });
  }

  search(terms: readonly string[], filters: SearchFilters, limit: number): Promise<SearchHit[]> {
    return attempt(() => {
      if (terms.length === 0 || filters.allowedSourceIds.length === 0) return [];
      // The exact top `limit` first; only when filters leave too few of a full set is a wider set
      // ranked, then every match.
      let hits = this.rank(terms, limit, filters);
      for (const candidates of [Math.min(limit * 4 + 20, 2000), -1]) {
        if (hits.found >= limit || hits.candidates < hits.asked) break;
        hits = this.rank(terms, candidates, filters);
      }
      return hits.rows.slice(0, limit);
    });
  }

  /** The best `count` FTS rows (every match when negative), scoring only the rows that can reach them. */
  private top(terms: readonly string[], count: number): Row[] {
    const match = terms.map(quote).join(' OR ');
    if (count > 0 && count <= PRUNED_TOP_MAX && terms.length > 1) {
      const matches = terms.map((term) => Number((this.fts.matches.get(quote(term)) as Row)['n']));
      const rowBound = Number((this.statements.maxChunkId.get() as Row)['n']);
      const pruned = prunedRanking(matches, rowBound);
      if (pruned !== undefined) {
        const required = pruned.required.map((index) => quote(terms[index] as string)).join(' OR ');
        const rows = this.fts.topWithin.all(match, required, count) as Row[];
        if (
          provenTop(
            rows.map((row) => -Number(row['score'])),
            count,
            pruned.ceiling,
          )
        )
          return rows;
      }
    }
    return this.fts.top.all(match, count);
  }

  private rank(
    terms: readonly string[],
    candidates: number,
    filters: SearchFilters,
  ): { rows: SearchHit[]; found: number; candidates: number; asked: number } {
    const ranked = this.top(terms, candidates);
    const order = new Map(
      ranked.map((row, index) => [Number(row['rowid']), { index, score: -Number(row['score']) }]),
    );
    const details = this.statements.hitDetails.all(
      JSON.stringify([...order.keys()]),
      this.workspaceId,
      ...filterParams(filters),
    ) as unknown as unknown[][];
    const rows = details
      // c.id follows HIT_COLUMNS' nine values.
      .map((row) => ({ row, rank: order.get(Number(row[9])) as { index: number; score: number } }))
      .sort((a, b) => a.rank.index - b.rank.index)
      .map(({ row, rank }) => hitFromValues(row, rank.score));
    return { rows, found: rows.length, candidates: ranked.length, asked: candidates };
  }

  getDocument(docId: string): Promise<StoredDocument | undefined> {
    return attempt(() => {
      const row = this.statements.document.get(this.workspaceId, docId) as Row | undefined;
      if (row === undefined) return undefined;
      return documentFromRow(row);
    });
  }

  getChunks(docId: string, fromChunk: number, limit: number): Promise<StoredChunk[]> {
    return attempt(() =>
      (this.statements.chunks.all(this.workspaceId, docId, fromChunk, limit) as Row[]).map((row) =>
        chunkFromRow(docId, row),
      ),
    );
  }

  countDocuments(sourceId: string): Promise<number> {
    return attempt(() => Number((this.statements.count.get(this.workspaceId, sourceId) as Row)['n']));
  }

  putVectors(space: EmbeddingSpace, vectors: readonly ChunkVector[]): Promise<number> {
    return attempt(() => {
      const batch = this.vectors.put(space, vectors);
      let stored = 0;
      this.transaction(() => (stored = batch.run()));
      return stored;
    });
  }

  chunksWithoutVector(sourceId: string, space: EmbeddingSpace, limit: number): Promise<UnembeddedChunk[]> {
    return attempt(() => this.vectors.missing(sourceId, space, limit));
  }

  vectorProgress(sourceId: string, space: EmbeddingSpace): Promise<{ chunks: number; embedded: number }> {
    return attempt(() => this.vectors.progress(sourceId, space));
  }

  chunkHits(filters: SearchFilters, keys: readonly ChunkKey[]): Promise<SearchHit[]> {
    return attempt(() => {
      if (keys.length === 0 || filters.allowedSourceIds.length === 0) return [];
      const rows = this.statements.keyedHits.all(
        JSON.stringify(keys.map((key) => [key.docId, key.chunkNo])),
        this.workspaceId,
        ...filterParams(filters),
      ) as unknown as unknown[][];
      return inKeyOrder(
        keys,
        rows.map((row) => hitFromValues(row, 0)),
      );
    });
  }

  vectorSearch(
    filters: SearchFilters,
    query: Float32Array,
    space: EmbeddingSpace,
    limit: number,
  ): Promise<VectorHit[]> {
    return attempt(() => this.vectors.search(filters, query, space, limit));
  }
}

export class SqliteKnowledgeStore implements KnowledgeStore {
  readonly kind = 'sqlite' as const;
  private readonly db: DatabaseSync;
  private readonly statements: Statements;
  private readonly vectorStatements: VectorStatements;
  private readonly workspaces = new Map<string, SqliteWorkspaceStore>();
  private readonly vectorCaches: VectorCaches;

  /** `vectorIndex`: when searches go through the approximate index (vector-cache.ts). */
  constructor(path: string, vectorIndex?: VectorIndexOptions) {
    this.vectorCaches = new VectorCaches(vectorIndex);
    this.db = new DatabaseSync(path);
    // Reads through a memory map, not read() into SQLite's 2 MB page cache: a search at 100k chunks
    // touches thousands of FTS and docsize pages and 400 chunk and document rows, and copying each
    // page in was ~15 % of lexical latency (docs/benchmarks.md#latency-by-mode). Mapped pages are the
    // OS page cache (clean, reclaimable, no heap), but RSS counts every page the process touched: at
    // 100k chunks the whole ~330 MB file once the vector load has read each vector. A 64 MiB page
    // cache instead gave half the gain for +100 MB of heap.
    this.db.exec(`PRAGMA mmap_size = ${MMAP_BYTES}`);
    this.db.exec(SCHEMA);
    migrate(this.db);
    this.db.exec(VECTOR_SCHEMA);
    this.statements = prepare(this.db);
    this.vectorStatements = prepareVectors(this.db);
  }

  workspace(workspaceId: string): WorkspaceStore {
    if (workspaceId === '') throw new Error('a workspace is required');
    let store = this.workspaces.get(workspaceId);
    if (store === undefined) {
      store = new SqliteWorkspaceStore(
        this.db,
        this.statements,
        this.vectorStatements,
        workspaceId,
        this.vectorCaches.of(workspaceId),
      );
      this.workspaces.set(workspaceId, store);
    }
    return store;
  }

  close(): Promise<void> {
    this.vectorCaches.close();
    if (this.db.isOpen) this.db.close();
    return Promise.resolve();
  }
}
