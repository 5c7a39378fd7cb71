// The KnowledgeStore port (D6, D7; spec §1 "workspace-isolated knowledge layer"). Every operation
// goes through `workspace(id)`, so no call can be made without a workspace; implementations also
// put `workspace_id` on every row and filter on it in every statement.
export interface DocumentInput {
  readonly docId: string;
  readonly sourceId: string;
  readonly sourceType: string;
  readonly externalId: string;
  readonly title: string;
  readonly url: string | undefined;
  readonly updatedAt: string | undefined;
  readonly contentHash: string;
  readonly bodyChars: number;
}

export interface ChunkInput {
  readonly chunkNo: number;
  readonly text: string;
  readonly charStart: number;
  readonly charEnd: number;
}

export interface SearchFilters {
  /** The sources the caller may see; nothing outside them is searched (deny by default). */
  readonly allowedSourceIds: readonly string[];
  readonly sourceId?: string | undefined;
  readonly sourceType?: string | undefined;
}

export interface SearchHit {
  readonly docId: string;
  readonly chunkNo: number;
  readonly text: string;
  readonly score: number;
  readonly title: string;
  readonly url: string | undefined;
  readonly sourceId: string;
  readonly sourceType: string;
  readonly updatedAt: string | undefined;
}

export interface StoredDocument extends DocumentInput {
  readonly chunkCount: number;
}

export interface StoredChunk extends ChunkInput {
  readonly docId: string;
}

export type SyncStatus = 'idle' | 'syncing' | 'failed';

export interface SyncState {
  readonly status: SyncStatus;
  readonly lastSyncAt: string | undefined;
  readonly lastSuccessAt: string | undefined;
  readonly lastError: string | undefined;
  readonly documents: number;
  readonly progress: { readonly done: number; readonly total: number | undefined } | undefined;
}

export interface WorkspaceStore {
  readonly workspaceId: string;
  /** Inserts or replaces a document and its chunks in one transaction. */
  upsertDocument(document: DocumentInput, chunks: readonly ChunkInput[]): Promise<void>;
  /** Content hashes of every document of one source, for incremental sync. */
  documentHashes(sourceId: string): Promise<Map<string, string>>;
  deleteDocuments(sourceId: string, docIds: readonly string[]): Promise<number>;
  /** BM25-ranked chunks for an already-normalised list of query terms (OR semantics). */
  search(terms: readonly string[], filters: SearchFilters, limit: number): Promise<SearchHit[]>;
  getDocument(docId: string): Promise<StoredDocument | undefined>;
  getChunks(docId: string, fromChunk: number, limit: number): Promise<StoredChunk[]>;
  countDocuments(sourceId: string): Promise<number>;
}

export interface KnowledgeStore {
  /** Which store this is (named in traces). */
  readonly kind: 'sqlite' | 'postgresql';
  workspace(workspaceId: string): WorkspaceStore;
  close(): Promise<void>;
}
