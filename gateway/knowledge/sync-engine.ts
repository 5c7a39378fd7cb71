// Syncs data sources into the KnowledgeStore (issue 4): incremental by content hash, removes items
// that disappeared (only after a complete listing, so a failing connector never deletes anything),
// one sync per source at a time (SourceLock), on a schedule and on demand, with progress and state
// for /agent/sources. A failing connector leaves what is already indexed searchable. No time limit
// cuts a listing (connectors time out each request); config change, removal and stop() abort it. An
// embedding pass that stops resumes by itself with backoff (pass-retries.ts, issue 39).
import type { DataSourceConfig, GatewayConfig } from '../config/index.js';
import type { Logger } from '../telemetry/logger.js';
import { chunkText } from './chunker.js';
import { ConnectorError, type Connector } from './connectors/index.js';
import { findReachDenied } from '../reach/index.js';
import type { IndexingProgress, KnowledgeStore, SyncCounts, SyncState } from './knowledge-store.js';
import { EmbeddingPasses } from './embedding-pass.js';
import type { WorkspaceEmbeddings } from './embeddings/workspace-embeddings.js';
import { PassRetries } from './pass-retries.js';
import { RateMeter } from './rate-meter.js';
import type { BackoffShape } from './embeddings/retry-schedule.js';
import { systemClock, type Clock } from './embeddings/token-bucket.js';
import type { SourceLock } from './source-lock.js';
import { contentHash, documentId } from './stable-ids.js';
import { count } from '../telemetry/metrics.js';
import { inSpan } from '../telemetry/tracing.js';

export type SyncReport = SyncCounts;

export interface SyncEngineOptions {
  /** Waits before a stopped embedding pass resumes (default 5 s doubling to 5 min, jittered). */
  readonly passRetry?: BackoffShape;
  readonly random?: () => number;
  readonly clock?: Clock;
}

export type ConnectorFactory = (source: DataSourceConfig, workspace: string) => Connector;

/** Quiet time after the last change notification before a sync starts. */
const CHANGE_DELAY_MS = 300;
const noop = (): void => undefined;
/** How long an asked-for sync waits for a running one (maybe in another replica) before giving up. */
const REQUEST_WAIT_MS = 10 * 60_000;
const REQUEST_POLL_MS = 250;

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

export class SyncEngine {
  private readonly states = new Map<string, SyncState>();
  private readonly timers = new Map<
    string,
    { handle: NodeJS.Timeout; fingerprint: string; unwatch: () => void }
  >();
  private stopped = false;
  /** Per source: aborted when its config changes or leaves, or the engine stops. */
  private readonly lifetimes = new Map<string, AbortController>();
  /** Sources with an asked-for sync that has not started yet: shown as syncing meanwhile. */
  private readonly requested = new Map<string, symbol>();
  private readonly retries: PassRetries;
  private readonly clock: Clock;
  private readonly passes: EmbeddingPasses;

  constructor(
    private readonly store: KnowledgeStore,
    private readonly lock: SourceLock,
    private readonly logger: Logger,
    private readonly connectors: ConnectorFactory,
    private readonly embeddings?: WorkspaceEmbeddings,
    options: SyncEngineOptions = {},
  ) {
    this.retries = new PassRetries(options.passRetry, options.random);
    this.clock = options.clock ?? systemClock;
    const host = {
      state: (workspace: string, source: string) => this.state(workspace, source),
      update: (workspace: string, source: string, change: Partial<SyncState>) =>
        this.update(workspace, source, change),
      lifetime: (key: string) => this.lifetime(key),
      stopped: () => this.stopped,
    };
    this.passes = new EmbeddingPasses(host, store, lock, logger, this.retries, this.clock, embeddings);
  }

  state(workspace: string, source: string): SyncState {
    const key = `${workspace}/${source}`;
    const state = this.states.get(key) ?? IDLE;
    // An asked-for sync waiting for a running one: a client following it must not see it done.
    return this.requested.has(key) && state.status !== 'syncing' ? { ...state, status: 'syncing' } : state;
  }

  private lifetime(key: string): AbortSignal {
    let controller = this.lifetimes.get(key);
    if (controller === undefined) {
      controller = new AbortController();
      this.lifetimes.set(key, controller);
    }
    return controller.signal;
  }

  /** The source's config changed or left, or the engine stops: its listing, pass and retry end. */
  private end(key: string): void {
    this.lifetimes.get(key)?.abort();
    this.lifetimes.delete(key);
    this.retries.clear(key);
    // An asked-for sync still waiting was for the old settings: it gives up (see requestSync).
    this.requested.delete(key);
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

  /** Asks for a sync of the source and returns at once (POST …/refresh answers 202): `started` when
   * it starts now; `queued` when one is running, so another runs after it (content changed since
   * that one began is picked up), or one is already waiting. The source shows as syncing until the
   * asked-for run ends. */
  requestSync(workspace: string, source: DataSourceConfig): 'started' | 'queued' {
    const key = `${workspace}/${source.name}`;
    if (this.requested.has(key)) return 'queued';
    const running = this.state(workspace, source.name).status === 'syncing';
    // This request's own mark: a later request (after a config change) is never unmarked by it.
    const mark = Symbol(key);
    this.requested.set(key, mark);
    const mine = () => this.requested.get(key) === mark;
    const deadline = Date.now() + REQUEST_WAIT_MS;
    const attempt = async (): Promise<void> => {
      for (;;) {
        const report = await this.lock.tryWith(key, () => {
          if (!mine()) return Promise.resolve(undefined);
          // Marked syncing before unmarked, so no follower sees a gap.
          this.update(workspace, source.name, { status: 'syncing' });
          this.requested.delete(key);
          return this.run(workspace, source);
        });
        if (report !== undefined || !mine() || this.stopped || Date.now() >= deadline) return;
        await new Promise((resolve) => setTimeout(resolve, REQUEST_POLL_MS));
      }
    };
    void attempt()
      .catch(() => undefined)
      .finally(() => {
        if (mine()) this.requested.delete(key);
      });
    return running ? 'queued' : 'started';
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
    const key = `${workspace}/${source.name}`;
    const signal = this.lifetime(key);
    this.update(workspace, source.name, {
      status: 'syncing',
      lastSyncAt: startedAt,
      progress: { done: 0, total: undefined },
      indexing: undefined,
    });
    const report = { added: 0, updated: 0, unchanged: 0, removed: 0 };
    try {
      const known = await store.documentHashes(source.name);
      const seen = new Set<string>();
      let done = 0;
      let chunksDone = 0;
      // The total: counted by the connector before reading, else what the last sync indexed (an
      // estimate, dropped once passed); unknown on a first sync.
      let counted: number | undefined;
      const meter = new RateMeter(0, this.clock);
      const report$ = (): void => {
        const estimate = counted ?? (known.size > 0 ? known.size : undefined);
        const total = estimate !== undefined && estimate >= done ? estimate : undefined;
        this.update(workspace, source.name, {
          progress: { done, total },
          indexing: syncProgress(done, total, chunksDone, meter),
        });
      };
      const items = this.connectors(source, workspace).items(signal, {
        total: (count) => {
          counted = count;
          report$();
        },
      });
      for await (const item of items) {
        const docId = documentId(workspace, source.name, item.externalId);
        const hash = contentHash(item.title, item.body, item.url ?? '', item.updatedAt ?? '');
        seen.add(docId);
        const previous = known.get(docId);
        if (previous === hash) report.unchanged += 1;
        else {
          const chunks = chunkText(item.body);
          chunksDone += chunks.length;
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
        report$();
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
        indexing: undefined,
        lastReport: { ...report },
      });
      this.logger.info({ workspace, source: source.name, ...report, documents }, 'data source synced');
      await this.passes.run(workspace, source, signal);
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
          : signal.aborted
            ? 'sync stopped: the source changed or left the config, or the gateway is stopping'
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
        indexing: undefined,
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
    const replaced = new Set<string>();
    for (const [key, timer] of this.timers) {
      if (wanted.get(key)?.fingerprint !== timer.fingerprint) {
        clearInterval(timer.handle);
        timer.unwatch();
        this.timers.delete(key);
        // Its running listing or pass (old settings) stops, and a pending resumption is dropped.
        this.end(key);
        if (wanted.has(key)) replaced.add(key);
      }
    }
    for (const [key, { workspace, source, fingerprint }] of wanted) {
      if (this.timers.has(key)) continue;
      const run = () => void this.sync(workspace, source).catch(() => undefined);
      // A changed source syncs with its new settings once the stopped run has let go of it.
      if (replaced.has(key)) this.requestSync(workspace, source);
      else run();
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
    for (const key of [...this.lifetimes.keys()]) this.end(key);
    this.retries.close();
  }
}

function syncProgress(
  done: number,
  total: number | undefined,
  chunksDone: number,
  meter: RateMeter,
): IndexingProgress {
  return {
    phase: 'sync',
    documentsDone: done,
    documentsTotal: total,
    chunksDone,
    chunksTotal: undefined,
    ...meter.pace(done, total),
  };
}
