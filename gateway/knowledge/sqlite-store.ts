// The embedded KnowledgeStore (D7): SQLite FTS5 through Node's built-in `node:sqlite`, BM25 with the
// title weighted 4× the body, porter stemming. Isolation is enforced twice: the FTS match is scoped
// by an indexed per-workspace token column, and every SQL statement filters on `workspace_id`.
import { createHash } from 'node:crypto';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import type {
  ChunkInput,
  DocumentInput,
  KnowledgeStore,
  SearchFilters,
  SearchHit,
  StoredChunk,
  StoredDocument,
  WorkspaceStore,
} from './knowledge-store.js';

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
  text TEXT NOT NULL, char_start INTEGER NOT NULL, char_end INTEGER NOT NULL,
  UNIQUE (workspace_id, doc_id, chunk_no));
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
  ws, title, body, content='', contentless_delete=1, tokenize='porter unicode61');
`;

/** An FTS token that stands for one workspace and cannot collide with a word of text. */
function workspaceToken(workspaceId: string): string {
  return `wsx${createHash('sha256').update(workspaceId).digest('hex').slice(0, 24)}`;
}

function quote(term: string): string {
  return `"${term.replace(/"/g, '""')}"`;
}

type Row = Record<string, unknown>;
const str = (value: unknown): string => (typeof value === 'string' ? value : String(value));
const optional = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

class SqliteWorkspaceStore implements WorkspaceStore {
  private readonly token: string;

  constructor(
    private readonly db: DatabaseSync,
    private readonly statements: Statements,
    readonly workspaceId: string,
  ) {
    this.token = workspaceToken(workspaceId);
  }

  upsertDocument(document: DocumentInput, chunks: readonly ChunkInput[]): Promise<void> {
    const s = this.statements;
    this.db.exec('BEGIN');
    try {
      this.removeChunks(document.docId);
      s.upsertDocument.run(
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
        const result = s.insertChunk.run(
          this.workspaceId,
          document.docId,
          chunk.chunkNo,
          chunk.text,
          chunk.charStart,
          chunk.charEnd,
        );
        s.insertFts.run(result.lastInsertRowid, this.token, document.title, chunk.text);
      }
      this.db.exec('COMMIT');
    } catch (error) {
      this.db.exec('ROLLBACK');
      throw error;
    }
    return Promise.resolve();
  }

  private removeChunks(docId: string): void {
    const rows = this.statements.chunkRowIds.all(this.workspaceId, docId) as Row[];
    for (const row of rows) this.statements.deleteFts.run(row['id'] as number);
    this.statements.deleteChunks.run(this.workspaceId, docId);
  }

  documentHashes(sourceId: string): Promise<Map<string, string>> {
    const rows = this.statements.hashes.all(this.workspaceId, sourceId) as Row[];
    return Promise.resolve(new Map(rows.map((row) => [str(row['doc_id']), str(row['content_hash'])])));
  }

  deleteDocuments(sourceId: string, docIds: readonly string[]): Promise<number> {
    let removed = 0;
    this.db.exec('BEGIN');
    try {
      for (const docId of docIds) {
        this.removeChunks(docId);
        removed += Number(this.statements.deleteDocument.run(this.workspaceId, sourceId, docId).changes);
      }
      this.db.exec('COMMIT');
    } catch (error) {
      this.db.exec('ROLLBACK');
      throw error;
    }
    return Promise.resolve(removed);
  }

  search(terms: readonly string[], filters: SearchFilters, limit: number): Promise<SearchHit[]> {
    if (terms.length === 0 || filters.allowedSourceIds.length === 0) return Promise.resolve([]);
    const match = `ws:${this.token} AND (${terms.map(quote).join(' OR ')})`;
    const rows = this.statements.search.all(
      match,
      this.workspaceId,
      JSON.stringify(filters.allowedSourceIds),
      filters.sourceId ?? null,
      filters.sourceId ?? null,
      filters.sourceType ?? null,
      filters.sourceType ?? null,
      limit,
    ) as Row[];
    return Promise.resolve(
      rows.map((row) => ({
        docId: str(row['doc_id']),
        chunkNo: Number(row['chunk_no']),
        text: str(row['text']),
        score: -Number(row['score']),
        title: str(row['title']),
        url: optional(row['url']),
        sourceId: str(row['source_id']),
        sourceType: str(row['source_type']),
        updatedAt: optional(row['updated_at']),
      })),
    );
  }

  getDocument(docId: string): Promise<StoredDocument | undefined> {
    const row = this.statements.document.get(this.workspaceId, docId) as Row | undefined;
    if (row === undefined) return Promise.resolve(undefined);
    return Promise.resolve({
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
    });
  }

  getChunks(docId: string, fromChunk: number, limit: number): Promise<StoredChunk[]> {
    const rows = this.statements.chunks.all(this.workspaceId, docId, fromChunk, limit) as Row[];
    return Promise.resolve(
      rows.map((row) => ({
        docId,
        chunkNo: Number(row['chunk_no']),
        text: str(row['text']),
        charStart: Number(row['char_start']),
        charEnd: Number(row['char_end']),
      })),
    );
  }

  countDocuments(sourceId: string): Promise<number> {
    const row = this.statements.count.get(this.workspaceId, sourceId) as Row;
    return Promise.resolve(Number(row['n']));
  }
}

interface Statements {
  upsertDocument: StatementSync;
  insertChunk: StatementSync;
  insertFts: StatementSync;
  chunkRowIds: StatementSync;
  deleteFts: StatementSync;
  deleteChunks: StatementSync;
  deleteDocument: StatementSync;
  hashes: StatementSync;
  search: StatementSync;
  document: StatementSync;
  chunks: StatementSync;
  count: StatementSync;
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
      'INSERT INTO chunks (workspace_id, doc_id, chunk_no, text, char_start, char_end) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    insertFts: db.prepare('INSERT INTO chunks_fts (rowid, ws, title, body) VALUES (?, ?, ?, ?)'),
    chunkRowIds: db.prepare('SELECT id FROM chunks WHERE workspace_id = ? AND doc_id = ?'),
    deleteFts: db.prepare('DELETE FROM chunks_fts WHERE rowid = ?'),
    deleteChunks: db.prepare('DELETE FROM chunks WHERE workspace_id = ? AND doc_id = ?'),
    deleteDocument: db.prepare(
      'DELETE FROM documents WHERE workspace_id = ? AND source_id = ? AND doc_id = ?',
    ),
    hashes: db.prepare('SELECT doc_id, content_hash FROM documents WHERE workspace_id = ? AND source_id = ?'),
    search: db.prepare(
      `SELECT c.doc_id, c.chunk_no, c.text, d.title, d.url, d.source_id, d.source_type, d.updated_at,
              bm25(chunks_fts, 0.0, 4.0, 1.0) AS score
       FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid
       JOIN documents d ON d.workspace_id = c.workspace_id AND d.doc_id = c.doc_id
       WHERE chunks_fts MATCH ? AND c.workspace_id = ?
         AND d.source_id IN (SELECT value FROM json_each(?))
         AND (? IS NULL OR d.source_id = ?) AND (? IS NULL OR d.source_type = ?)
       ORDER BY score, c.doc_id, c.chunk_no LIMIT ?`,
    ),
    document: db.prepare('SELECT * FROM documents WHERE workspace_id = ? AND doc_id = ?'),
    chunks: db.prepare(
      'SELECT chunk_no, text, char_start, char_end FROM chunks WHERE workspace_id = ? AND doc_id = ? AND chunk_no >= ? ORDER BY chunk_no LIMIT ?',
    ),
    count: db.prepare('SELECT count(*) AS n FROM documents WHERE workspace_id = ? AND source_id = ?'),
  };
}

export class SqliteKnowledgeStore implements KnowledgeStore {
  private readonly db: DatabaseSync;
  private readonly statements: Statements;

  constructor(path: string) {
    this.db = new DatabaseSync(path);
    this.db.exec(SCHEMA);
    this.statements = prepare(this.db);
  }

  workspace(workspaceId: string): WorkspaceStore {
    if (workspaceId === '') throw new Error('a workspace is required');
    return new SqliteWorkspaceStore(this.db, this.statements, workspaceId);
  }

  close(): Promise<void> {
    if (this.db.isOpen) this.db.close();
    return Promise.resolve();
  }
}
