// The embedding pass of a sync (issue 22): after a source's documents are indexed, every chunk with
// no vector of the workspace's current model and dimensions is embedded and stored, a page at a time,
// with progress reported after each page. Chunks that already have one are never sent again, so a
// re-sync of unchanged content makes no embedding call; a changed model or length re-embeds all.
// A failure stops the pass and is reported; the text index is untouched, so everything stays
// searchable lexically, and the next pass (the sync engine resumes a stopped one by itself, issue 39)
// carries on from where this one stopped.
import { EmbeddingFailed, type EmbeddingProvider } from './embeddings/embedding-provider.js';
import type { EmbeddingSpace, VectorState, WorkspaceStore } from './knowledge-store.js';

/** The text a chunk is embedded as: its document's title, then its text. */
export function embeddingText(title: string, text: string): string {
  return title === '' ? text : `${title}\n\n${text}`;
}

export interface EmbedSourceInput {
  readonly store: WorkspaceStore;
  readonly sourceId: string;
  readonly provider: EmbeddingProvider;
  readonly space: EmbeddingSpace;
  /** Chunks read and embedded per page (several provider batches, sent concurrently). */
  readonly pageSize: number;
  readonly signal?: AbortSignal;
  readonly onProgress: (state: VectorState) => void;
}

export async function embedSource(input: EmbedSourceInput): Promise<VectorState> {
  const { store, sourceId, provider, space } = input;
  let { chunks, embedded } = await store.vectorProgress(sourceId, space);
  const state = (status: VectorState['status'], lastError?: string): VectorState => ({
    status,
    model: space.model,
    embedded,
    chunks,
    lastError,
  });
  input.onProgress(state('embedding'));
  try {
    for (;;) {
      // Stopped between pages too (a time limit, shutdown), not only inside a provider call.
      if (input.signal?.aborted === true) throw new EmbeddingFailed('aborted');
      const page = await store.chunksWithoutVector(sourceId, space, input.pageSize);
      if (page.length === 0) break;
      const vectors = await provider.embed(
        page.map((chunk) => embeddingText(chunk.title, chunk.text)),
        input.signal,
      );
      const stored = await store.putVectors(
        space,
        page.map((chunk, index) => ({
          docId: chunk.docId,
          chunkNo: chunk.chunkNo,
          contentHash: chunk.contentHash,
          vector: vectors[index] as Float32Array,
        })),
      );
      // Nothing stored means every chunk of the page changed under us: the next sync takes them.
      if (stored === 0) break;
      ({ chunks, embedded } = await store.vectorProgress(sourceId, space));
      input.onProgress(state('embedding'));
    }
    ({ chunks, embedded } = await store.vectorProgress(sourceId, space));
    return state('ready');
  } catch (error) {
    // Only content-free words: an EmbeddingFailed's message, or a vector the store refused.
    const message =
      error instanceof EmbeddingFailed
        ? error.message
        : error instanceof RangeError
          ? `embeddings failed: malformed_response (${error.message})`
          : 'embeddings failed: store_error';
    return state('failed', message);
  }
}
