// The flat record of a connected source (GET /agent/sources): MCP sources and data sources share one
// set of columns (null where a column does not apply) so the list stays one TOON table.
import type { DataSourceConfig, McpSourceConfig } from '../config/index.js';
import type { SkippedTool, SourceState } from '../discovery/index.js';
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
  /** Data sources of a workspace with embeddings: embedding, ready or failed (null otherwise). */
  readonly embedding_status: 'embedding' | 'ready' | 'failed' | null;
  /** Chunks with a vector of the current model / all chunks, e.g. `1200/1500`. */
  readonly embedding_progress: string | null;
  readonly embedding_model: string | null;
  /** Why the last embedding pass stopped, with no key, endpoint or content. */
  readonly embedding_error: string | null;
}

const NO_EMBEDDINGS = {
  embedding_status: null,
  embedding_progress: null,
  embedding_model: null,
  embedding_error: null,
} as const;

export function sourceRecord(
  source: McpSourceConfig,
  state: SourceState,
  breaker: BreakerState,
  collisions: readonly SkippedTool[] = [],
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
    ...NO_EMBEDDINGS,
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
    ...(state.vectors === undefined
      ? NO_EMBEDDINGS
      : {
          embedding_status: state.vectors.status,
          embedding_progress: `${state.vectors.embedded}/${state.vectors.chunks}`,
          embedding_model: state.vectors.model,
          embedding_error: state.vectors.lastError ?? null,
        }),
  };
}
