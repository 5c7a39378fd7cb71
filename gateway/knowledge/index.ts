export { SqliteKnowledgeStore } from './sqlite-store.js';
export type { PgVectorSearch } from './pgvector-search.js';
export { DEFAULT_VECTOR_INDEX } from './vector-cache.js';
export type { IndexBuild, VectorIndexOptions } from './vector-cache.js';
export type {
  KnowledgeStore,
  WorkspaceStore,
  SearchHit,
  SearchFilters,
  DocumentInput,
  ChunkInput,
  SyncState,
  SyncCounts,
  IndexingProgress,
  StoredDocument,
  StoredChunk,
  EmbeddingSpace,
  ChunkVector,
  UnembeddedChunk,
  VectorHit,
  ChunkKey,
} from './knowledge-store.js';
export { retrieve, RETRIEVAL_MODES } from './retrieve.js';
export {
  parseSearchBody,
  noteSearchScope,
  QUERY_MAX_CHARS,
  SNIPPET_DEFAULT,
  SNIPPET_MIN,
  SNIPPET_MAX,
  DEFAULT_LIMIT,
} from './search-request.js';
export type { ParsedSearchBody } from './search-request.js';
export { CANDIDATE_POOL, GROUP_BY, OTHER_CHUNK_IDS_SHOWN, collapseByDocument } from './document-collapse.js';
export type { GroupBy, DocumentEntry } from './document-collapse.js';
export type { RetrievalMode, RetrievalFallback, Retrieval } from './retrieve.js';
export { fuse, fuseRanked, DEFAULT_FUSION } from './hybrid-fusion.js';
export { embedQuery } from './query-embedding.js';
export { unitVector, dotAt } from './vector-math.js';
export type { QueryVector } from './query-embedding.js';
export type { Fusion, RankFusion, FoundBy, Scored, Fused } from './hybrid-fusion.js';
export { meaningAnswer } from './meaning-answer.js';
export { SyncEngine } from './sync-engine.js';
export type { SyncReport, ConnectorFactory } from './sync-engine.js';
export { MemorySourceLock } from './source-lock.js';
export type { SourceLock } from './source-lock.js';
export {
  KnowledgeService,
  DocumentNotFound,
  InvalidCursor,
  PAGE_MAX_CHARS,
  PAGE_MAX_CHUNKS,
} from './knowledge-service.js';
export type {
  SearchRequest,
  SearchRecord,
  DocumentPage,
  QueryResult,
  KnowledgeServiceOptions,
  RetrievalRecord,
  SearchOutcome,
} from './knowledge-service.js';
export { chunkText, DEFAULT_CHUNKING } from './chunker.js';
export { documentId, chunkId, parseChunkId, contentHash } from './stable-ids.js';
export { queryTerms, STOP_WORDS } from './query-terms.js';
export { makeSnippet } from './snippet.js';
export { extractiveAnswer, splitSentences } from './extractive-answer.js';
export { chatAnswerer, AnswererFailed, citedPassages, fitPassages } from './chat-answerer.js';
export type { Answerer, AnswerFailure, ModelAnswer, Passage } from './chat-answerer.js';
export { encodeCursor, decodeCursor } from './document-cursor.js';
export { connectorFor } from './connectors/index.js';
export type { Connector, SourceItem } from './connectors/index.js';
export {
  EmbeddingFailed,
  HttpEmbeddingProvider,
  CachedEmbeddingProvider,
  EmbeddingCache,
  HashingEmbeddingProvider,
  hashingVector,
  embeddingProviderFor,
  WorkspaceEmbeddings,
  embeddingsFor,
  QUERY_BACKOFF_MS,
} from './embeddings/index.js';
export type { EmbeddingProvider, EmbeddingFailure, HttpEmbeddingOptions } from './embeddings/index.js';
