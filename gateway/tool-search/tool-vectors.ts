// The vectors of a workspace's tools (issue 23), made by the workspace's embeddings provider (the
// knowledge layer's) and held in gateway memory per workspace and model. Asking for the vectors of a
// view answers at once with what is known and embeds the rest in the background, one pass at a
// time per workspace, so a search never waits for a catalog to be embedded: until then its tools
// rank by words. Kept by the text a vector was made of, so a tool whose name, description or
// parameters changed (a list_changed, a refresh) gets a new vector and an unchanged one never
// costs a second call. A failed pass is retried after a pause, not on every search.
import type { EmbeddingFailure, EmbeddingProvider, WorkspaceEmbeddings } from '../knowledge/index.js';
import { EmbeddingFailed, unitVector } from '../knowledge/index.js';
import type { ToolDocument } from './tool-document.js';

/** How long after a failed pass the next one may start. */
export const RETRY_AFTER_MS = 30_000;
/** Texts per provider call, one call at a time: a pass holds at most one of the provider's
 * concurrent requests, so a search's question never queues behind a whole page of tools (with 256
 * per call, hybrid find_tools took ~0.8 s while 3,000 tools were being embedded). */
const PASS_SIZE = 32;

interface WorkspaceVectors {
  /** The provider's model and dimensions the vectors belong to. */
  readonly space: string;
  readonly byText: Map<string, Float32Array>;
  pass: Promise<void> | undefined;
  failure: { readonly reason: EmbeddingFailure; readonly at: number } | undefined;
}

export interface ViewVectors {
  /** One unit vector (or undefined while it is being made) per document, in order. */
  readonly vectors: readonly (Float32Array | undefined)[];
  readonly missing: number;
  /** Why the last embedding pass failed, while its pause lasts. */
  readonly failure: EmbeddingFailure | undefined;
}

function spaceOf(provider: EmbeddingProvider): string {
  return `${provider.model}#${provider.dimensions ?? 'native'}`;
}

export class ToolVectors {
  private readonly workspaces = new Map<string, WorkspaceVectors>();

  constructor(
    private readonly embeddings: WorkspaceEmbeddings | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether the workspace has an embeddings provider at all. */
  configured(workspace: string): boolean {
    return this.embeddings?.provider(workspace) !== undefined;
  }

  /** The known vectors of `documents`; starts a pass for the missing ones unless one runs or failed lately. */
  view(workspace: string, documents: readonly ToolDocument[]): ViewVectors {
    const provider = this.embeddings?.provider(workspace);
    if (provider === undefined) {
      this.workspaces.delete(workspace);
      return { vectors: documents.map(() => undefined), missing: documents.length, failure: undefined };
    }
    let state = this.workspaces.get(workspace);
    const space = spaceOf(provider);
    if (state?.space !== space) {
      state = { space, byText: new Map(), pass: undefined, failure: undefined };
      this.workspaces.set(workspace, state);
    }
    const vectors = documents.map((document) => state.byText.get(document.text));
    const missing = vectors.filter((vector) => vector === undefined).length;
    const paused = state.failure !== undefined && this.now() - state.failure.at < RETRY_AFTER_MS;
    if (missing > 0 && state.pass === undefined && !paused) {
      const texts = [...new Set(documents.filter((_, i) => vectors[i] === undefined).map((d) => d.text))];
      const current = state;
      current.pass = this.embedPass(workspace, current, texts, documents).finally(() => {
        current.pass = undefined;
      });
    }
    return { vectors, missing, failure: paused ? state.failure?.reason : undefined };
  }

  /** Resolves when the workspace's running pass (if any) has ended. */
  async settled(workspace: string): Promise<void> {
    await this.workspaces.get(workspace)?.pass;
  }

  private async embedPass(
    workspace: string,
    state: WorkspaceVectors,
    texts: readonly string[],
    documents: readonly ToolDocument[],
  ): Promise<void> {
    const provider = this.embeddings?.provider(workspace);
    if (provider === undefined || spaceOf(provider) !== state.space) return;
    try {
      for (let at = 0; at < texts.length; at += PASS_SIZE) {
        const batch = texts.slice(at, at + PASS_SIZE);
        const made = await provider.embed(batch);
        batch.forEach((text, i) => {
          const vector = made[i];
          if (vector === undefined) throw new EmbeddingFailed('malformed_response');
          // A vector that cannot be made unit length (zeros, not finite) throws RangeError.
          state.byText.set(text, unitVector(vector, { model: provider.model, dimensions: vector.length }));
        });
      }
      state.failure = undefined;
    } catch (error) {
      state.failure = {
        reason:
          error instanceof EmbeddingFailed
            ? error.reason
            : error instanceof RangeError
              ? 'malformed_response'
              : 'unreachable',
        at: this.now(),
      };
    }
    // Vectors of tools that left the catalog go once they outnumber the ones in use.
    if (state.byText.size > 2 * documents.length + 64) {
      const inUse = new Set(documents.map((document) => document.text));
      for (const text of state.byText.keys()) if (!inUse.has(text)) state.byText.delete(text);
    }
  }
}
