// The embedding pass of a data source inside the sync engine (issues 22, 39): runs embedSource with
// the workspace's provider under the source's lifetime signal and an optional time limit
// (`passTimeoutMs`), reports progress with a rate and time left, and when a pass stops (provider
// failure, the limit) arms its resumption (pass-retries.ts), which carries on from the chunks that
// still have no vector, without waiting for the next sync.
import type { DataSourceConfig } from '../config/index.js';
import type { Logger } from '../telemetry/logger.js';
import { inSpan } from '../telemetry/tracing.js';
import { embedSource } from './embed-source.js';
import { EmbeddingFailed } from './embeddings/embedding-provider.js';
import type { Clock } from './embeddings/token-bucket.js';
import type { WorkspaceEmbeddings } from './embeddings/workspace-embeddings.js';
import type { IndexingProgress, KnowledgeStore, SyncState, VectorState } from './knowledge-store.js';
import type { PassRetries } from './pass-retries.js';
import { RateMeter } from './rate-meter.js';
import type { SourceLock } from './source-lock.js';

/** Chunks embedded per page of the embedding pass (progress is reported after each). */
const EMBED_PAGE_MIN = 64;

/** What the pass needs of the sync engine that owns the source states. */
export interface PassHost {
  state(workspace: string, source: string): SyncState;
  update(workspace: string, source: string, change: Partial<SyncState>): void;
  /** Aborted when the source's config changes or leaves, or the engine stops. */
  lifetime(key: string): AbortSignal;
  stopped(): boolean;
}

export class EmbeddingPasses {
  constructor(
    private readonly host: PassHost,
    private readonly store: KnowledgeStore,
    private readonly lock: SourceLock,
    private readonly logger: Logger,
    private readonly retries: PassRetries,
    private readonly clock: Clock,
    private readonly embeddings: WorkspaceEmbeddings | undefined,
  ) {}

  /** The embedding pass after a successful sync (or resuming a stopped one), when the workspace has
   * embeddings. Its failure is reported in the source's vector state and logged, never fails the
   * sync, and arms a resumption (unless the source changed or left, or the engine stopped). */
  async run(workspace: string, source: DataSourceConfig, given?: AbortSignal): Promise<void> {
    const key = `${workspace}/${source.name}`;
    this.retries.disarm(key);
    // The sync's own, or taken before the pass: a config change ends it (and a new one begins), so
    // a pass of old settings never arms a resumption.
    const lifetime = given ?? this.host.lifetime(key);
    const before = this.host.state(workspace, source.name).vectors;
    const final = await this.embedPass(workspace, source, lifetime);
    if (final?.status !== 'failed') {
      this.retries.clear(key);
      return;
    }
    if (this.host.stopped() || lifetime.aborted) return;
    const headway = before !== undefined && final.embedded > before.embedded;
    const at = this.retries.arm(key, headway, () => void this.resume(workspace, source));
    if (at !== undefined)
      this.host.update(workspace, source.name, {
        vectors: { ...final, retryAt: new Date(at).toISOString() },
      });
  }

  /** A stopped pass resumes: only the pass, from the chunks still without a vector. When a sync of
   * the source runs (here or in another replica) its own pass does the work instead. */
  private async resume(workspace: string, source: DataSourceConfig): Promise<void> {
    if (this.host.stopped()) return;
    await this.lock
      .tryWith(`${workspace}/${source.name}`, () => this.run(workspace, source))
      .catch(() => undefined);
  }

  /** One embedding pass: the vector state it ended with, or undefined when there are no embeddings. */
  private async embedPass(
    workspace: string,
    source: DataSourceConfig,
    lifetime: AbortSignal,
  ): Promise<VectorState | undefined> {
    const provider = this.embeddings?.provider(workspace);
    if (this.embeddings === undefined || provider === undefined) {
      this.host.update(workspace, source.name, { vectors: undefined });
      return undefined;
    }
    const limitMs = this.embeddings.passTimeoutMs(workspace);
    const limit = limitMs === undefined ? undefined : AbortSignal.timeout(limitMs);
    const signal = limit === undefined ? lifetime : AbortSignal.any([lifetime, limit]);
    let space;
    try {
      space = await this.embeddings.space(workspace, signal);
    } catch (error) {
      const message = error instanceof EmbeddingFailed ? error.message : 'embeddings failed: unreachable';
      const failed: VectorState = {
        status: 'failed',
        model: provider.model,
        embedded: 0,
        chunks: 0,
        lastError: message,
      };
      this.host.update(workspace, source.name, { vectors: failed });
      this.logger.warn({ workspace, source: source.name, err: message }, 'embedding pass failed');
      return failed;
    }
    if (space === undefined) return undefined;
    const started = performance.now();
    const before = this.host.state(workspace, source.name).vectors;
    let meter: RateMeter | undefined;
    const result = await inSpan(
      `knowledge.embed ${source.name}`,
      { attributes: { 'agw.workspace': workspace, 'agw.source': source.name } },
      async (span) => {
        const result = await embedSource({
          store: this.store.workspace(workspace),
          sourceId: source.name,
          provider,
          space,
          pageSize: EMBED_PAGE_MIN,
          signal,
          onProgress: (vectors) => {
            meter ??= new RateMeter(vectors.embedded, this.clock);
            const documents = this.host.state(workspace, source.name).documents;
            this.host.update(workspace, source.name, {
              vectors,
              indexing: embeddingProgress(vectors, documents, meter),
            });
          },
        });
        span.setAttributes({ 'agw.embed.chunks': result.chunks, 'agw.embed.embedded': result.embedded });
        return result;
      },
    );
    // Cut by its time limit, the pass says so (and resumes); an abort for a stop stays `aborted`.
    const final: VectorState =
      result.status === 'failed' && limit?.aborted === true && !lifetime.aborted
        ? { ...result, lastError: `embedding pass reached passTimeoutMs (${limitMs} ms); it resumes` }
        : result;
    this.host.update(workspace, source.name, { vectors: final, indexing: undefined });
    const fields = {
      workspace,
      source: source.name,
      model: final.model,
      embedded: final.embedded,
      chunks: final.chunks,
      ms: Math.round(performance.now() - started),
    };
    if (final.status === 'failed')
      this.logger.warn(
        { ...fields, err: final.lastError },
        'embedding pass failed; lexical search still serves',
      );
    else if (before?.embedded !== final.embedded || before.chunks !== final.chunks)
      this.logger.info(fields, 'data source embedded');
    return final;
  }
}

function embeddingProgress(vectors: VectorState, documents: number, meter: RateMeter): IndexingProgress {
  return {
    phase: 'embedding',
    documentsDone: documents,
    documentsTotal: documents,
    chunksDone: vectors.embedded,
    chunksTotal: vectors.chunks,
    ...meter.pace(vectors.embedded, vectors.chunks),
  };
}
