export { ToolSearch, TOOL_FUSION } from './tool-search.js';
export type {
  FoundTool,
  ToolRetrieval,
  ToolRetrievalFallback,
  ToolSearchOptions,
  ToolSearchRequest,
  ToolSearchResult,
} from './tool-search.js';
export { ToolVectors, RETRY_AFTER_MS, RETRY_MAX_MS, SYSTEM_VECTOR_CLOCK } from './tool-vectors.js';
export type { VectorClock } from './tool-vectors.js';
export { ToolIndexer } from './tool-indexer.js';
export {
  toolDocument,
  FIELD_WEIGHTS,
  EMBEDDED_DESCRIPTION_CHARS,
  INDEXED_DESCRIPTION_CHARS,
} from './tool-document.js';
export type { ToolDocument } from './tool-document.js';
export { rankLexically } from './lexical-tool-ranker.js';
export { queryToolTerms, toolTerms, words } from './tool-terms.js';
export { parseToolQuery, FIND_TOOLS_BOUNDS, LISTING_BOUNDS, TOOL_QUERY_MAX_CHARS } from './tool-query.js';
export type { ToolQueryBounds, ToolQueryParse } from './tool-query.js';
export { retrievalRecord } from './retrieval-record.js';
export type { RetrievalRecord } from './retrieval-record.js';
