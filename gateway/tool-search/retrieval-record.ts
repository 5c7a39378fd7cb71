// How a tool search ranked, as its answers say it (find_tools, /agent/tools?query=): only when the
// workspace has embeddings or the request named a mode, as document search does, so a workspace
// without embeddings gets the same answers it always got.
import type { ToolSearchRequest, ToolSearchResult } from './tool-search.js';

export interface RetrievalRecord {
  readonly requested: string;
  readonly used: string;
  readonly fallback_reason: string | null;
  readonly pending_vectors?: number;
}

export function retrievalRecord(
  found: ToolSearchResult,
  request: ToolSearchRequest,
): RetrievalRecord | undefined {
  if (!found.embeddingsConfigured && request.mode === undefined) return undefined;
  const { requested, used, fallbackReason, pendingVectors } = found.retrieval;
  return {
    requested,
    used,
    fallback_reason: fallbackReason,
    ...(pendingVectors > 0 ? { pending_vectors: pendingVectors } : {}),
  };
}
