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
  /** The Markdown heading path in effect where the chunk starts ("Setup › Time-outs"); none in a
   * body with no headings. Indexed with the title, not part of the chunk's text (chunk-headings.ts). */
  readonly heading?: string | undefined;
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
  /** The chunk's heading path (ChunkInput.heading); undefined when it has none. */
  readonly heading?: string | undefined;
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
  /** When the last sync run ended, successfully or not (issue 25). */
  readonly lastFinishedAt?: string | undefined;
  /** Chunks indexed for the source after its last sync run (issue 25). */
  readonly chunks?: number | undefined;
  /** Items done so far in a running sync; `total` stays unknown because connectors stream. */
  readonly progress: { readonly done: number; readonly total: number | undefined } | undefined;
  /** The source's chunk vectors when its workspace has embeddings (undefined otherwise). */
  readonly vectors: VectorState | undefined;
  /** Live figures of a running sync or embedding pass (issue 39); undefined when neither runs. */
  readonly indexing?: IndexingProgress | undefined;
  /** What the last successful sync run changed (issue 39: a refresh answers before it ends). */
  readonly lastReport?: SyncCounts | undefined;
}

/** Documents a sync run added, updated, found unchanged and removed. */
export interface SyncCounts {
  readonly added: number;
  readonly updated: number;
  readonly unchanged: number;
  readonly removed: number;
}

/** What a running sync (documents) or embedding pass (chunks) has done of what, and how fast. */
export interface IndexingProgress {
  readonly phase: 'sync' | 'embedding';
  readonly documentsDone: number;
  /** Counted by the connector before reading (files), else the documents indexed before this sync;
   * undefined when unknown (a first sync, or more done than that estimate). */
  readonly documentsTotal: number | undefined;
  /** Sync: chunks (re)written by this run so far; embedding: chunks with a vector. */
  readonly chunksDone: number;
  /** Sync: unknown; embedding: all chunks of the source. */
  readonly chunksTotal: number | undefined;
  /** Documents (sync) or chunks (embedding) per second since the phase started; undefined early on. */
  readonly ratePerSecond: number | undefined;
  /** Seconds left at that rate; undefined when the total or the rate is unknown. */
  readonly etaSeconds: number | undefined;
}

/** Embedding progress of one source: `embedded` of `chunks` have a vector of the current model. */
export interface VectorState {
  readonly status: 'embedding' | 'ready' | 'failed';
  readonly model: string;
  readonly embedded: number;
  readonly chunks: number;
  /** Why the last embedding pass stopped, in words with no key, endpoint or content. */
  readonly lastError: string | undefined;
  /** When a pass that stopped resumes by itself (ISO time); undefined when none is due. */
  readonly retryAt?: string | undefined;
}

/** The model and vector length a vector was made with. Vectors of two spaces are never compared. */
export interface EmbeddingSpace {
  readonly model: string;
  readonly dimensions: number;
}

/** A chunk's vector, for the chunk as it was under the document's `contentHash`. */
export interface ChunkVector {
  readonly docId: string;
  readonly chunkNo: number;
  /** The document's content hash when its chunk text was read: a vector for older text is dropped. */
  readonly contentHash: string;
  readonly vector: Float32Array;
}

/** A chunk with no vector in a given space: what a sync still has to embed. */
export interface UnembeddedChunk {
  readonly docId: string;
  readonly chunkNo: number;
  readonly contentHash: string;
  readonly title: string;
  readonly text: string;
}

export interface VectorHit {
  readonly docId: string;
  readonly chunkNo: number;
  /** Cosine similarity with the query, in [-1, 1]. */
  readonly similarity: number;
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
  /** Stores (or replaces) chunk vectors; one vector per chunk, whatever its space. A vector whose
   * chunk no longer exists, or whose document changed since (`contentHash`), is skipped. Vectors
   * go with their chunks: a document's re-upsert or deletion removes them. Returns how many were
   * stored. Throws a RangeError for a vector of the wrong length, not finite, or all zeros. */
  putVectors(space: EmbeddingSpace, vectors: readonly ChunkVector[]): Promise<number>;
  /** Chunks of one source with no vector in `space` (none, or one of another model or length), at
   * most `limit`, by document (in the store's own stable order) and chunk number. */
  chunksWithoutVector(sourceId: string, space: EmbeddingSpace, limit: number): Promise<UnembeddedChunk[]>;
  /** How many chunks one source has, and how many of them have a vector in `space`. */
  vectorProgress(sourceId: string, space: EmbeddingSpace): Promise<{ chunks: number; embedded: number }>;
  /** The chunks most similar to `query` by cosine, among vectors of `space` only, under the same
   * filters and workspace scope as `search`; ties by (docId, chunkNo). A query of the wrong length,
   * not finite or all zeros is a RangeError. */
  vectorSearch(
    filters: SearchFilters,
    query: Float32Array,
    space: EmbeddingSpace,
    limit: number,
  ): Promise<VectorHit[]>;
  /** The chunks named by `keys` with their document's details (score 0), under the same filters and
   * workspace scope as `search`; keys that name no chunk, or one outside the filters, are left out.
   * Order follows `keys`. */
  chunkHits(filters: SearchFilters, keys: readonly ChunkKey[]): Promise<SearchHit[]>;
}

/** One chunk by document and number. */
export interface ChunkKey {
  readonly docId: string;
  readonly chunkNo: number;
}

export interface KnowledgeStore {
  /** Which store this is (named in traces). */
  readonly kind: 'sqlite' | 'postgresql';
  workspace(workspaceId: string): WorkspaceStore;
  close(): Promise<void>;
}
