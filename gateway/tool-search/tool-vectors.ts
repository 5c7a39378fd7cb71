// The vectors of a workspace's tools (issues 23, 37), made by the workspace's embeddings provider (the
// knowledge layer's) and held in gateway memory per workspace and model, under the SHA-256 of the
// text each was made of: a tool whose name, description or parameters changed gets a new vector, an
// unchanged one never costs a second call. Texts are queued when their tools are discovered (the
// ToolIndexer hands over a workspace's whole catalog) or first ranked, and embedded in the
// background: one pass at a time per workspace, 32 texts per call, at most two calls at once across
// workspaces. A search never waits for it: tools without a vector rank by words. A failed pass is
// retried on a timer with exponential backoff, never by a search.
import type { EmbeddingFailure, EmbeddingProvider, WorkspaceEmbeddings } from '../knowledge/index.js';
import { EmbeddingFailed, unitVector } from '../knowledge/index.js';
import { silentLogger, type Logger } from '../telemetry/logger.js';
import { Permits } from './permits.js';
import type { ToolDocument } from './tool-document.js';

/** The pause after a first failed pass; each further failure doubles it, up to RETRY_MAX_MS. The
 * pause taken is between half and all of it, so replicas sharing a provider do not retry in step. */
export const RETRY_AFTER_MS = 1_000;
export const RETRY_MAX_MS = 60_000;
/** Texts per provider call: a pass holds one of the provider's concurrent requests at a time, so a
 * search's question never queues behind a whole page of tools (with 256 per call, hybrid find_tools
 * took ~0.8 s while 3,000 tools were being embedded). */
const PASS_SIZE = 32;
/** Provider calls for tool vectors in flight at once, over all workspaces of this replica: a
 * configuration change that brings many workspaces must not open as many calls. */
const MAX_CONCURRENT_CALLS = 2;

export interface VectorClock {
  now(): number;
  /** Runs `run` after `ms` without holding the process open; returns a cancel. */
  schedule(run: () => void, ms: number): () => void;
}

export const SYSTEM_VECTOR_CLOCK: VectorClock = {
  now: () => Date.now(),
  schedule: (run, ms) => {
    const timer = setTimeout(run, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
};

interface Failure {
  readonly reason: EmbeddingFailure;
  readonly attempts: number;
  readonly retryAt: number;
}

interface WorkspaceVectors {
  /** The provider's model and dimensions the vectors belong to. */
  readonly space: string;
  readonly byDigest: Map<string, Float32Array>;
  /** Texts waiting for a vector, by digest, in the order they came. */
  readonly queue: Map<string, string>;
  /** The digests of the workspace's whole catalog, once the indexer has handed it over. */
  catalog: ReadonlySet<string> | undefined;
  pass: Promise<void> | undefined;
  failure: Failure | undefined;
  cancelRetry: (() => void) | undefined;
}

export interface ViewVectors {
  /** One unit vector (or undefined while it is being made) per document, in order. */
  readonly vectors: readonly (Float32Array | undefined)[];
  readonly missing: number;
  /** Why the last embedding pass failed, until one succeeds. */
  readonly failure: EmbeddingFailure | undefined;
}

/** A text to embed and the digest its vector is kept under (a ToolDocument is one). */
export interface EmbeddedText {
  readonly digest: string;
  readonly text: string;
}

function spaceOf(provider: EmbeddingProvider): string {
  return `${provider.model}#${provider.dimensions ?? 'native'}`;
}

function reasonOf(error: unknown): EmbeddingFailure {
  if (error instanceof EmbeddingFailed) return error.reason;
  // A vector that cannot be made unit length (zeros, not finite) throws RangeError.
  return error instanceof RangeError ? 'malformed_response' : 'unreachable';
}

export class ToolVectors {
  private readonly workspaces = new Map<string, WorkspaceVectors>();
  private readonly permits = new Permits(MAX_CONCURRENT_CALLS);
  private closed = false;

  constructor(
    private readonly embeddings: WorkspaceEmbeddings | undefined,
    private readonly clock: VectorClock = SYSTEM_VECTOR_CLOCK,
    private readonly logger: Logger = silentLogger,
  ) {}

  /** Whether the workspace has an embeddings provider at all. */
  configured(workspace: string): boolean {
    return this.embeddings?.provider(workspace) !== undefined;
  }

  /** The known vectors of `documents` (a view); queues the missing ones and starts a pass unless
   * one runs or a retry is pending. */
  view(workspace: string, documents: readonly ToolDocument[]): ViewVectors {
    const state = this.stateOf(workspace);
    if (state === undefined)
      return { vectors: documents.map(() => undefined), missing: documents.length, failure: undefined };
    const vectors = documents.map((document) => state.byDigest.get(document.digest));
    let missing = 0;
    documents.forEach((document, i) => {
      if (vectors[i] !== undefined) return;
      missing += 1;
      if (!state.queue.has(document.digest)) state.queue.set(document.digest, document.text);
    });
    // Without an indexer (a ToolSearch on its own) no catalog is known: vectors of texts no longer
    // seen go once they outnumber the ones in use.
    if (state.catalog === undefined && state.byDigest.size > 2 * documents.length + 64) {
      const inUse = new Set(documents.map((document) => document.digest));
      for (const digest of state.byDigest.keys()) if (!inUse.has(digest)) state.byDigest.delete(digest);
    }
    this.start(workspace, state, false);
    return { vectors, missing, failure: state.failure?.reason };
  }

  /** The workspace's whole catalog as discovered: its missing vectors are queued and a pass
   * starts (unless one runs or a retry is pending); vectors and queued texts of tools no longer in
   * it are dropped. */
  index(workspace: string, documents: readonly EmbeddedText[]): void {
    const state = this.stateOf(workspace);
    if (state === undefined) return;
    const catalog = new Set(documents.map((document) => document.digest));
    state.catalog = catalog;
    for (const digest of state.byDigest.keys()) if (!catalog.has(digest)) state.byDigest.delete(digest);
    for (const digest of state.queue.keys()) if (!catalog.has(digest)) state.queue.delete(digest);
    for (const document of documents)
      if (!state.byDigest.has(document.digest) && !state.queue.has(document.digest))
        state.queue.set(document.digest, document.text);
    this.start(workspace, state, false);
  }

  /** Drops a workspace's vectors (gone from the config, or its embeddings turned off). */
  forget(workspace: string): void {
    this.workspaces.get(workspace)?.cancelRetry?.();
    this.workspaces.delete(workspace);
  }

  /** Vectors held and texts waiting, for a workspace (zeros when it has none). */
  counts(workspace: string): { readonly vectors: number; readonly pending: number } {
    const state = this.workspaces.get(workspace);
    return { vectors: state?.byDigest.size ?? 0, pending: state?.queue.size ?? 0 };
  }

  /** Resolves when the workspace's running pass (if any) has ended. */
  async settled(workspace: string): Promise<void> {
    await this.workspaces.get(workspace)?.pass;
  }

  /** Stops retrying and starting passes (shutdown); a call in flight ends on its own. */
  close(): void {
    this.closed = true;
    for (const state of this.workspaces.values()) state.cancelRetry?.();
  }

  private stateOf(workspace: string): WorkspaceVectors | undefined {
    const provider = this.embeddings?.provider(workspace);
    if (provider === undefined) {
      this.forget(workspace);
      return undefined;
    }
    const known = this.workspaces.get(workspace);
    const space = spaceOf(provider);
    if (known?.space === space) return known;
    // Another model or dimensions: every vector is made again.
    known?.cancelRetry?.();
    const state: WorkspaceVectors = {
      space,
      byDigest: new Map(),
      queue: new Map(),
      catalog: known?.catalog,
      pass: undefined,
      failure: undefined,
      cancelRetry: undefined,
    };
    if (known !== undefined) for (const [digest, text] of known.queue) state.queue.set(digest, text);
    this.workspaces.set(workspace, state);
    return state;
  }

  private start(workspace: string, state: WorkspaceVectors, retry: boolean): void {
    if (this.closed || state.pass !== undefined || state.queue.size === 0) return;
    if (this.workspaces.get(workspace) !== state) return;
    // A search never brings a retry forward; the timer (or its time having come) does.
    if (!retry && state.failure !== undefined && this.clock.now() < state.failure.retryAt) return;
    state.cancelRetry?.();
    state.cancelRetry = undefined;
    state.pass = this.drain(workspace, state).finally(() => {
      state.pass = undefined;
    });
  }

  private async drain(workspace: string, state: WorkspaceVectors): Promise<void> {
    const started = this.clock.now();
    let embedded = 0;
    try {
      while (state.queue.size > 0) {
        const provider = this.embeddings?.provider(workspace);
        if (this.closed || this.workspaces.get(workspace) !== state) return;
        if (provider === undefined || spaceOf(provider) !== state.space) return;
        const batch: [string, string][] = [];
        for (const entry of state.queue) {
          batch.push(entry);
          if (batch.length === PASS_SIZE) break;
        }
        const made = await this.permits.run(() => provider.embed(batch.map(([, text]) => text)));
        batch.forEach(([digest], i) => {
          const vector = made[i];
          if (vector === undefined) throw new EmbeddingFailed('malformed_response');
          const unit = unitVector(vector, { model: provider.model, dimensions: vector.length });
          // A text dropped meanwhile (its tool left the catalog) is not kept.
          if (state.queue.delete(digest)) state.byDigest.set(digest, unit);
        });
        embedded += batch.length;
      }
    } catch (error) {
      this.failed(workspace, state, reasonOf(error));
      return;
    }
    const recovered = state.failure !== undefined;
    state.failure = undefined;
    if (embedded > 0)
      this.logger.info(
        {
          workspace,
          embedded,
          vectors: state.byDigest.size,
          ms: Math.round(this.clock.now() - started),
          ...(recovered ? { recovered } : {}),
        },
        'tool vectors ready',
      );
  }

  private failed(workspace: string, state: WorkspaceVectors, reason: EmbeddingFailure): void {
    const attempts = (state.failure?.attempts ?? 0) + 1;
    const delay = Math.min(RETRY_AFTER_MS * 2 ** (attempts - 1), RETRY_MAX_MS);
    const pause = Math.round(delay / 2 + (Math.random() * delay) / 2);
    state.failure = { reason, attempts, retryAt: this.clock.now() + pause };
    // Said once when the provider starts failing; the retries that fail again are debug lines.
    const fields = { workspace, reason, attempts, pending: state.queue.size, retryInMs: pause };
    const message = 'tool embedding failed; tools rank by words until a retry succeeds';
    if (attempts === 1) this.logger.warn(fields, message);
    else this.logger.debug(fields, message);
    state.cancelRetry = this.clock.schedule(() => {
      state.cancelRetry = undefined;
      this.start(workspace, state, true);
    }, pause);
  }
}
