// A search's text embedded for a vector comparison (issue 22; tool search, issue 23): within the
// workspace's query budget, and never failing: a missing, failing or slow provider is a reason to
// answer lexically. A failure puts the workspace's provider on its back-off, a success takes it off.
import { EmbeddingFailed, type EmbeddingFailure } from './embeddings/embedding-provider.js';
import type { WorkspaceEmbeddings } from './embeddings/workspace-embeddings.js';
import type { EmbeddingSpace } from './knowledge-store.js';

/** Why a search that asked for vectors answered lexically. */
export type RetrievalFallback = EmbeddingFailure | 'not_configured';

export type QueryVector =
  | { readonly ok: true; readonly vector: Float32Array; readonly space: EmbeddingSpace }
  | { readonly ok: false; readonly reason: RetrievalFallback };

export async function embedQuery(
  embeddings: WorkspaceEmbeddings | undefined,
  workspace: string,
  text: string,
): Promise<QueryVector> {
  const lookup = embeddings?.forQuery(workspace) ?? { state: 'off' as const };
  if (lookup.state === 'off') return { ok: false, reason: 'not_configured' };
  if (lookup.state === 'down') return { ok: false, reason: lookup.reason };
  const deadline = AbortSignal.timeout(lookup.timeoutMs);
  try {
    const [vector] = await lookup.provider.embed([text], deadline);
    if (vector === undefined) throw new EmbeddingFailed('malformed_response');
    embeddings?.querySucceeded(workspace);
    return { ok: true, vector, space: { model: lookup.provider.model, dimensions: vector.length } };
  } catch (error) {
    const reason: EmbeddingFailure = deadline.aborted
      ? 'timeout'
      : error instanceof EmbeddingFailed
        ? error.reason
        : 'unreachable';
    embeddings?.queryFailed(workspace, reason);
    return { ok: false, reason };
  }
}
