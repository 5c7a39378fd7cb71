// Syncs data sources into the KnowledgeStore (issue 4): incremental by content hash, removes items
// that disappeared (only after a complete listing, so a failing connector never deletes anything),
// one sync per source at a time (SourceLock), on a schedule and on demand, with progress and state
// for /agent/sources. A failing connector leaves what is already indexed searchable.
import type { DataSourceConfig, GatewayConfig } from '../config/index.js';
import type { Logger } from '../telemetry/logger.js';
import { chunkText } from './chunker.js';
import { ConnectorError, type Connector } from './connectors/index.js';
import { findReachDenied } from '../reach/index.js';
import type { KnowledgeStore, SyncState } from './knowledge-store.js';
import { embedSource } from './embed-source.js';
import { EmbeddingFailed } from './embeddings/embedding-provider.js';
import type { WorkspaceEmbeddings } from './embeddings/workspace-embeddings.js';
import type { SourceLock } from './source-lock.js';
import { contentHash, documentId } from './stable-ids.js';
import { count } from '../telemetry/metrics.js';
import { inSpan } from '../telemetry/tracing.js';

export interface SyncReport {
  readonly added: number;
  readonly updated: number;
  readonly unchanged: number;
  readonly removed: number;
}

export type ConnectorFactory = (source: DataSourceConfig, workspace: string) => Connector;

/** Quiet time after the last change notification before a sync starts. */
const CHANGE_DELAY_MS = 300;
const noop = (): void => undefined;

const IDLE: SyncState = {
  status: 'idle',
  lastSyncAt: undefined,
  lastSuccessAt: undefined,
  lastError: undefined,
  documents: 0,
  progress: undefined,
  vectors: undefined,
};

/** A space no provider has (dimensions 0): `vectorProgress` in it counts chunks and nothing else. */
const NO_SPACE = { model: '', dimensions: 0 } as const;

/** Chunks embedded per page of the embedding pass (progress is reported after each). */
const EMBED_PAGE_MIN = 64;

export class SyncEngine {
  private readonly states = new Map<string, SyncState>();
  private readonly timers = new Map<
    string,
    { handle: NodeJS.Timeout; fingerprint: string; unwatch: () => void }
  >();
  private stopped = false;

  constructor(
    private readonly store: KnowledgeStore,
    private readonly lock: SourceLock,
    private readonly logger: Logger,
    private readonly connectors: ConnectorFactory,
    private readonly embeddings?: WorkspaceEmbeddings,
  ) {}

  state(workspace: string, source: string): SyncState {
    return this.states.get(`${workspace}/${source}`) ?? IDLE;
  }

  private update(workspace: string, source: string, change: Partial<SyncState>): void {
    const key = `${workspace}/${source}`;
    this.states.set(key, { ...(this.states.get(key) ?? IDLE), ...change });
  }

  /** Syncs one source now. Resolves undefined when another sync of it is already running. */
  async sync(workspace: string, source: DataSourceConfig): Promise<SyncReport | undefined> {
    return this.lock.tryWith(`${workspace}/${source.name}`, () => this.run(workspace, source));
  }

  /** Syncs one source now; when another sync of it is running (here or in another process), waits
   * for it and syncs again, so the result reflects the source as it was when this was called.
   * Resolves undefined when the source stayed busy past `waitMs`. */
  async syncFresh(
    workspace: string,
    source: DataSourceConfig,
    waitMs = 60_000,
  ): Promise<SyncReport | undefined> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const report = await this.sync(workspace, source);
      if (report !== undefined || Date.now() >= deadline || this.stopped) return report;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** One sync run, traced: counts only (documents added, updated, unchanged, removed). */
  private run(workspace: string, source: DataSourceConfig): Promise<SyncReport> {
    return inSpan(
      `knowledge.sync ${source.name}`,
      {
        attributes: { 'agw.workspace': workspace, 'agw.source': source.name, 'agw.source.type': source.type },
      },
      async (span) => {
        const report = await this.runOnce(workspace, source);
        span.setAttributes({
          'agw.sync.added': report.added,
          'agw.sync.updated': report.updated,
          'agw.sync.unchanged': report.unchanged,
          'agw.sync.removed': report.removed,
        });
        return report;
      },
    );
  }

  /** Indexed documents per data source (the knowledge index size gauge). */
  documentCounts(): { workspace: string; source: string; documents: number }[] {
    return [...this.states.entries()].map(([key, state]) => {
      const [workspace = '', source = ''] = key.split('/');
      return { workspace, source, documents: state.documents ?? 0 };
    });
  }

  private async runOnce(workspace: string, source: DataSourceConfig): Promise<SyncReport> {
    const store = this.store.workspace(workspace);
    const startedAt = new Date().toISOString();
    this.update(workspace, source.name, {
      status: 'syncing',
      lastSyncAt: startedAt,
      progress: { done: 0, total: undefined },
    });
    const report = { added: 0, updated: 0, unchanged: 0, removed: 0 };
    try {
      const known = await store.documentHashes(source.name);
      const seen = new Set<string>();
      let done = 0;
      for await (const item of this.connectors(source, workspace).items(AbortSignal.timeout(30 * 60_000))) {
        const docId = documentId(workspace, source.name, item.externalId);
        const hash = contentHash(item.title, item.body, item.url ?? '', item.updatedAt ?? '');
        seen.add(docId);
        const previous = known.get(docId);
        if (previous === hash) report.unchanged += 1;
        else {
          const chunks = chunkText(item.body);
          await store.upsertDocument(
            {
              docId,
              sourceId: source.name,
              sourceType: source.type,
              externalId: item.externalId,
              title: item.title,
              url: item.url,
              updatedAt: item.updatedAt,
              contentHash: hash,
              bodyChars: item.body.length,
            },
            chunks,
          );
          if (previous === undefined) report.added += 1;
          else report.updated += 1;
        }
        done += 1;
        if (done % 50 === 0) this.update(workspace, source.name, { progress: { done, total: undefined } });
      }
      const gone = [...known.keys()].filter((docId) => !seen.has(docId));
      report.removed = await store.deleteDocuments(source.name, gone);
      const documents = await store.countDocuments(source.name);
      const finishedAt = new Date().toISOString();
      this.update(workspace, source.name, {
        lastSuccessAt: finishedAt,
        lastFinishedAt: finishedAt,
        chunks: await this.chunkCount(store, source.name),
        lastError: undefined,
        documents,
        progress: undefined,
      });
      this.logger.info({ workspace, source: source.name, ...report, documents }, 'data source synced');
      await this.embed(workspace, source);
      this.update(workspace, source.name, { status: 'idle' });
      count(
        'agw.sync.documents',
        { 'agw.workspace': workspace, 'agw.source': source.name },
        report.added + report.updated,
      );
      return report;
    } catch (error) {
      // Connector errors carry safe messages; anything else is reported by name and code only, since
      // its message could quote a secret or retrieved content.
      const denied = findReachDenied(error);
      const message =
        denied !== undefined
          ? denied.message
          : error instanceof ConnectorError
            ? error.message
            : error instanceof Error
              ? `${error.name}: ${(error as NodeJS.ErrnoException).code ?? 'sync failed'}`
              : 'sync failed';
      const documents = await store.countDocuments(source.name).catch(() => 0);
      this.update(workspace, source.name, {
        lastFinishedAt: new Date().toISOString(),
        chunks: await this.chunkCount(store, source.name).catch(() => undefined),
        status: 'failed',
        lastError: message,
        documents,
        progress: undefined,
      });
      this.logger.warn(
        { workspace, source: source.name, err: message },
        'data source sync failed; indexed documents stay searchable',
      );
      count('agw.sync.failures', { 'agw.workspace': workspace, 'agw.source': source.name });
      throw error;
    }
  }

  /** A source's chunks: the store counts them with its vector progress, read for a space no vector
   * is ever in (so nothing else is counted). */
  private async chunkCount(store: ReturnType<KnowledgeStore['workspace']>, source: string): Promise<number> {
    return (await store.vectorProgress(source, NO_SPACE)).chunks;
  }

  /** The embedding pass after a successful sync, when the workspace has embeddings. Its failure is
   * reported in the source's vector state and logged; it never fails the sync. */
  private async embed(workspace: string, source: DataSourceConfig): Promise<void> {
    const provider = this.embeddings?.provider(workspace);
    if (this.embeddings === undefined || provider === undefined) {
      this.update(workspace, source.name, { vectors: undefined });
      return;
    }
    const signal = AbortSignal.timeout(30 * 60_000);
    let space;
    try {
      space = await this.embeddings.space(workspace, signal);
    } catch (error) {
      const message = error instanceof EmbeddingFailed ? error.message : 'embeddings failed: unreachable';
      this.update(workspace, source.name, {
        vectors: { status: 'failed', model: provider.model, embedded: 0, chunks: 0, lastError: message },
      });
      this.logger.warn({ workspace, source: source.name, err: message }, 'embedding pass failed');
      return;
    }
    if (space === undefined) return;
    const started = performance.now();
    const before = this.state(workspace, source.name).vectors;
    const final = await inSpan(
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
          onProgress: (vectors) => this.update(workspace, source.name, { vectors }),
        });
        span.setAttributes({ 'agw.embed.chunks': result.chunks, 'agw.embed.embedded': result.embedded });
        return result;
      },
    );
    this.update(workspace, source.name, { vectors: final });
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
  }

  /** (Re)schedules the config's data sources: a new or changed source syncs now and then every
   * `syncIntervalMs`; an unchanged one keeps its timer; a removed one stops. */
  schedule(config: GatewayConfig): void {
    if (this.stopped) return;
    const wanted = new Map<string, { workspace: string; source: DataSourceConfig; fingerprint: string }>();
    for (const workspace of config.workspaces) {
      for (const source of workspace.dataSources) {
        wanted.set(`${workspace.name}/${source.name}`, {
          workspace: workspace.name,
          source,
          // A change of the workspace's embeddings settings is a change of the source: it syncs now.
          fingerprint: JSON.stringify([source, this.embeddings?.fingerprint(config, workspace.name) ?? '']),
        });
      }
    }
    for (const [key, timer] of this.timers) {
      if (wanted.get(key)?.fingerprint !== timer.fingerprint) {
        clearInterval(timer.handle);
        timer.unwatch();
        this.timers.delete(key);
      }
    }
    for (const [key, { workspace, source, fingerprint }] of wanted) {
      if (this.timers.has(key)) continue;
      const run = () => void this.sync(workspace, source).catch(() => undefined);
      run();
      const handle = setInterval(run, source.syncIntervalMs);
      handle.unref();
      const changes = this.debounced(workspace, source);
      const stopWatching = this.connectors(source, workspace).watch?.(changes.notify) ?? noop;
      const unwatch = () => {
        stopWatching();
        changes.cancel();
      };
      this.timers.set(key, { handle, fingerprint, unwatch });
    }
  }

  /** A change notification handler: bursts of changes become one sync CHANGE_DELAY_MS after the last;
   * a change that arrives while a sync runs is synced again once that one ends. */
  private debounced(workspace: string, source: DataSourceConfig): { notify: () => void; cancel: () => void } {
    let timer: NodeJS.Timeout | undefined;
    let cancelled = false;
    const fire = (): void => {
      timer = undefined;
      if (this.stopped || cancelled) return;
      void this.sync(workspace, source)
        .then((report) => {
          if (report === undefined && timer === undefined) arm();
        })
        .catch(() => undefined);
    };
    const arm = (): void => {
      if (cancelled) return;
      if (timer !== undefined) clearTimeout(timer);
      timer = setTimeout(fire, CHANGE_DELAY_MS);
      timer.unref();
    };
    const cancel = (): void => {
      cancelled = true;
      if (timer !== undefined) clearTimeout(timer);
    };
    return { notify: arm, cancel };
  }

  stop(): void {
    this.stopped = true;
    for (const timer of this.timers.values()) {
      clearInterval(timer.handle);
      timer.unwatch();
    }
    this.timers.clear();
  }
}
