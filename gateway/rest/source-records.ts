// The flat record of a connected source (GET /agent/sources): MCP sources and data sources share one
// set of columns (null where a column does not apply) so the list stays one TOON table.
import type { DataSourceConfig, McpSourceConfig } from '../config/index.js';
import {
  describeUnapproved,
  type PinVerdict,
  type SkippedTool,
  type SourceState,
} from '../discovery/index.js';
import type { SyncState } from '../knowledge/index.js';
import type { BreakerState } from '../upstream/index.js';

export interface SourceRecord {
  readonly id: string;
  readonly type: string;
  readonly transport: string | null;
  readonly status: 'ready' | 'unavailable' | 'unknown' | 'syncing';
  readonly tool_count: number | null;
  readonly documents: number | null;
  readonly checked_at: string | null;
  readonly last_success_at: string | null;
  readonly error_code: string | null;
  readonly error_class: string | null;
  readonly description: string | null;
  readonly breaker: BreakerState | null;
  readonly era: string | null;
  readonly era_detected_at: string | null;
  readonly transport_in_use: string | null;
  readonly sync_progress: string | null;
  /** Why the last sync of a data source failed, or why an MCP source's last listing (or, while it
   * is failing, its last probe) failed, in words that carry no secret and no content. */
  readonly last_error: string | null;
  /** MCP sources this replica knows as failing (left out of listings, probed in the background):
   * since when, and when its next probe starts (null while one runs). Null otherwise. */
  readonly failing_since: string | null;
  readonly next_probe_at: string | null;
  /** Upstream tools left out by the tool-name policy, or (prefix never) because their name is taken
   * for this key: how many, and `name (reason)` joined by `; `. */
  readonly skipped_tool_count: number | null;
  readonly skipped_tools: string | null;
  /** MCP sources: the naming policy (always, never, auto). */
  readonly prefix: string | null;
  /** MCP sources: how old (ms) a tool list may be and still decide a tools/call (callListFloorMs). */
  readonly call_list_floor_ms: number | null;
  /** MCP sources: the pinning mode (pin, warn, off; issue 41). */
  readonly pinning: string | null;
  /** MCP sources: tools whose definition is not the approved one (held under pin, served under
   * warn) that this key may see: how many, and `name (new|changed[: fields]; approve <digest>)`
   * joined by `; `. */
  readonly unapproved_tool_count: number | null;
  readonly unapproved_tools: string | null;
  /** Data sources of a workspace with embeddings: embedding, ready or failed (null otherwise). */
  readonly embedding_status: 'embedding' | 'ready' | 'failed' | null;
  /** Chunks with a vector of the current model / all chunks, e.g. `1200/1500`. */
  readonly embedding_progress: string | null;
  readonly embedding_model: string | null;
  /** Why the last embedding pass stopped, with no key, endpoint or content. */
  readonly embedding_error: string | null;
  /** When a stopped embedding pass resumes by itself (ISO time); null when none is due. */
  readonly embedding_retry_at: string | null;
  /** Data sources (issue 39): what runs now, `sync` (documents) or `embedding` (chunks); null idle. */
  readonly progress_phase: 'sync' | 'embedding' | null;
  /** Documents read of the total: during a sync, the items done and the total counted first (files
   * connector) or indexed by the previous sync (others; null on a first sync, or once passed);
   * otherwise both are the documents indexed. */
  readonly documents_done: number | null;
  readonly documents_total: number | null;
  /** Chunks done of the total: during a sync, chunks (re)written so far (total null); during and
   * after an embedding pass, chunks with a vector of all chunks; without embeddings, both the chunks
   * indexed. */
  readonly chunks_done: number | null;
  readonly chunks_total: number | null;
  /** Documents (sync) or chunks (embedding) per second since the phase began; null when idle or too
   * early to tell. */
  readonly rate_per_s: number | null;
  /** Seconds left at that rate; null when idle or when the total or rate is unknown. */
  readonly eta_s: number | null;
  /** What the last successful sync changed: documents added, updated, unchanged and removed. */
  readonly last_added: number | null;
  readonly last_updated: number | null;
  readonly last_unchanged: number | null;
  readonly last_removed: number | null;
}

const NO_EMBEDDINGS = {
  embedding_status: null,
  embedding_progress: null,
  embedding_model: null,
  embedding_error: null,
  embedding_retry_at: null,
} as const;

type ProgressColumns = Pick<
  SourceRecord,
  | 'progress_phase'
  | 'documents_done'
  | 'documents_total'
  | 'chunks_done'
  | 'chunks_total'
  | 'rate_per_s'
  | 'eta_s'
  | 'last_added'
  | 'last_updated'
  | 'last_unchanged'
  | 'last_removed'
>;

const NO_PROGRESS: ProgressColumns = {
  progress_phase: null,
  documents_done: null,
  documents_total: null,
  chunks_done: null,
  chunks_total: null,
  rate_per_s: null,
  eta_s: null,
  last_added: null,
  last_updated: null,
  last_unchanged: null,
  last_removed: null,
};

/** The progress columns of a data source: live figures while a sync or pass runs, else what is
 * indexed (and embedded). */
export function progressColumns(state: SyncState): ProgressColumns {
  const live = state.indexing;
  const report = state.lastReport;
  const known = state.lastSyncAt !== undefined;
  const chunks = state.vectors?.chunks ?? state.chunks;
  return {
    progress_phase: live?.phase ?? null,
    documents_done: live !== undefined ? live.documentsDone : known ? state.documents : null,
    documents_total: live !== undefined ? (live.documentsTotal ?? null) : known ? state.documents : null,
    chunks_done: live !== undefined ? live.chunksDone : (state.vectors?.embedded ?? chunks ?? null),
    chunks_total: live !== undefined ? (live.chunksTotal ?? null) : (chunks ?? null),
    rate_per_s: live?.ratePerSecond ?? null,
    eta_s: live?.etaSeconds ?? null,
    last_added: report?.added ?? null,
    last_updated: report?.updated ?? null,
    last_unchanged: report?.unchanged ?? null,
    last_removed: report?.removed ?? null,
  };
}

export function sourceRecord(
  source: McpSourceConfig,
  state: SourceState,
  breaker: BreakerState,
  collisions: readonly SkippedTool[] = [],
  pins: PinVerdict = { mode: source.pinning.mode, unapproved: [] },
): SourceRecord {
  const skipped = [...state.skippedTools, ...collisions];
  return {
    id: source.name,
    type: 'mcp',
    transport: source.transport,
    status: state.status,
    tool_count: state.toolCount,
    documents: null,
    checked_at: state.checkedAt ?? null,
    last_success_at: state.status === 'ready' ? (state.checkedAt ?? null) : null,
    error_code: state.error?.code ?? null,
    error_class: state.error?.errorClass ?? null,
    description: source.description ?? null,
    breaker,
    era: state.era ?? null,
    era_detected_at: state.eraDetectedAt ?? null,
    transport_in_use: state.transportInUse ?? null,
    sync_progress: null,
    last_error: state.failing?.lastError ?? state.lastError ?? null,
    failing_since: state.failing?.since ?? null,
    next_probe_at: state.failing?.nextProbeAt ?? null,
    skipped_tool_count: skipped.length,
    skipped_tools:
      skipped.length === 0 ? null : skipped.map((tool) => `${tool.name} (${tool.reason})`).join('; '),
    prefix: source.prefix,
    call_list_floor_ms: source.callListFloorMs,
    pinning: source.pinning.mode,
    unapproved_tool_count: pins.unapproved.length,
    unapproved_tools:
      pins.unapproved.length === 0 ? null : pins.unapproved.map(describeUnapproved).join('; '),
    ...NO_EMBEDDINGS,
    ...NO_PROGRESS,
  };
}

export function dataSourceRecord(source: DataSourceConfig, state: SyncState): SourceRecord {
  const status =
    state.status === 'syncing'
      ? 'syncing'
      : state.status === 'failed'
        ? 'unavailable'
        : state.lastSuccessAt !== undefined
          ? 'ready'
          : 'unknown';
  return {
    id: source.name,
    type: source.type,
    transport: null,
    status,
    tool_count: null,
    documents: state.documents,
    checked_at: state.lastSyncAt ?? null,
    last_success_at: state.lastSuccessAt ?? null,
    error_code: state.lastError === undefined ? null : 'sync_failed',
    error_class: state.lastError === undefined ? null : 'upstream_reachability',
    description: source.description ?? null,
    breaker: null,
    era: null,
    era_detected_at: null,
    transport_in_use: null,
    sync_progress:
      state.progress === undefined ? null : `${state.progress.done}/${state.progress.total ?? '?'}`,
    last_error: state.lastError ?? null,
    failing_since: null,
    next_probe_at: null,
    skipped_tool_count: null,
    skipped_tools: null,
    prefix: null,
    call_list_floor_ms: null,
    pinning: null,
    unapproved_tool_count: null,
    unapproved_tools: null,
    ...(state.vectors === undefined
      ? NO_EMBEDDINGS
      : {
          embedding_status: state.vectors.status,
          embedding_progress: `${state.vectors.embedded}/${state.vectors.chunks}`,
          embedding_model: state.vectors.model,
          embedding_error: state.vectors.lastError ?? null,
          embedding_retry_at: state.vectors.retryAt ?? null,
        }),
    ...progressColumns(state),
  };
}
