// Sources as the key sees them (GET /agent/sources): state, breaker, last sync or check, document
// counts, skipped tools, pinned definitions awaiting approval; chunk counts from GET /agent/activity when it is there; a running sync or
// embedding pass as done of total with its pace and time left (issue 39), refreshed every few
// seconds while one runs.
import { el, replace, show, table, when } from '../dom.js';
import type { View } from '../view.js';
import type { ActivityBody } from './activity-types.js';
import { failure } from './failure.js';

interface SourceRow {
  readonly id: string;
  readonly type: string;
  readonly status: string;
  readonly breaker: string | null;
  readonly tool_count: number | null;
  readonly documents: number | null;
  readonly checked_at: string | null;
  readonly last_success_at: string | null;
  readonly error_code: string | null;
  readonly last_error: string | null;
  readonly sync_progress: string | null;
  readonly embedding_error?: string | null;
  readonly embedding_retry_at?: string | null;
  readonly progress_phase?: 'sync' | 'embedding' | null;
  readonly documents_done?: number | null;
  readonly documents_total?: number | null;
  readonly chunks_done?: number | null;
  readonly chunks_total?: number | null;
  readonly rate_per_s?: number | null;
  readonly eta_s?: number | null;
  readonly skipped_tool_count: number | null;
  readonly skipped_tools: string | null;
  readonly pinning?: string | null;
  readonly unapproved_tool_count?: number | null;
  readonly unapproved_tools?: string | null;
  readonly description: string | null;
}

export interface SourcesBody {
  readonly workspace: string;
  readonly config_revision: string;
  readonly shared_state?: string;
  readonly sources: readonly SourceRow[];
}

/** Pinned tool definitions (issue 41): the mode and what awaits approval, with the digests. */
function pinningText(s: SourceRow): string {
  if (s.pinning == null || s.pinning === 'off') return s.type === 'mcp' ? 'off' : '—';
  if (!s.unapproved_tool_count) return `${s.pinning}: all approved`;
  const verb = s.pinning === 'pin' ? 'held' : 'unapproved';
  return `${s.pinning}: ${s.unapproved_tool_count} ${verb}: ${show(s.unapproved_tools)}`;
}

/** While a source syncs or embeds, the view reads the sources again this often. */
const FOLLOW_MS = 3_000;

/** Seconds as `1 h 5 min`, `4 min 10 s` or `12 s`. */
function duration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = Math.round(seconds % 60);
  return h > 0 ? `${h} h ${m} min` : m > 0 ? `${m} min ${s} s` : `${s} s`;
}

/** A running sync or pass: `embedding 1200/1500 chunks · 40/s · 8 s left`; a stopped pass: when it
 * resumes; else the sync progress string, if any. */
function progressText(s: SourceRow): string | null {
  const pace = [
    s.rate_per_s == null ? '' : ` · ${s.rate_per_s}/s`,
    s.eta_s == null ? '' : ` · ${duration(s.eta_s)} left`,
  ].join('');
  if (s.progress_phase === 'sync')
    return `syncing ${show(s.documents_done)}/${s.documents_total ?? '?'} documents${pace}`;
  if (s.progress_phase === 'embedding')
    return `embedding ${show(s.chunks_done)}/${show(s.chunks_total)} chunks${pace}`;
  if (s.embedding_error != null)
    return `embedding stopped: ${s.embedding_error}${s.embedding_retry_at == null ? '' : ` · resumes ${when(s.embedding_retry_at)}`}`;
  return s.sync_progress;
}

export const sourcesView: View = {
  id: 'sources',
  label: 'Sources',
  async render(panel, context) {
    const { api } = context;
    const [sources, activity] = await Promise.allSettled([
      api.get<SourcesBody>('/agent/sources'),
      api.get<ActivityBody>('/agent/activity'),
    ]);
    if (sources.status === 'rejected') return replace(panel, failure('Loading sources', sources.reason));
    const body = sources.value;
    const chunks = new Map(
      activity.status === 'fulfilled' ? activity.value.sync.map((s) => [s.source, s.chunks] as const) : [],
    );
    const rows = body.sources.map((s) => [
      el('span', { class: 'name' }, s.id),
      s.type,
      el('span', { class: `state state-${s.status}` }, s.status),
      show(s.breaker),
      when(s.last_success_at ?? s.checked_at),
      s.type === 'mcp' ? `${show(s.tool_count)} tools` : show(s.documents),
      s.type === 'mcp' ? '—' : show(chunks.get(s.id)),
      s.skipped_tool_count ? `${s.skipped_tool_count}: ${show(s.skipped_tools)}` : 'none',
      pinningText(s),
      [progressText(s), s.error_code, s.last_error].filter((v) => v !== null).join(' · ') || '—',
    ]);
    replace(
      panel,
      el(
        'p',
        { class: 'meta' },
        `Workspace ${body.workspace} · config revision ${body.config_revision}`,
        body.shared_state === undefined ? '' : ` · shared state ${body.shared_state}`,
      ),
      rows.length === 0
        ? el('p', {}, 'This key sees no sources.')
        : table(
            `${rows.length} source${rows.length === 1 ? '' : 's'}`,
            [
              'Source',
              'Type',
              'State',
              'Breaker',
              'Last sync or check',
              'Documents',
              'Chunks',
              'Skipped tools',
              'Pinned definitions',
              'Progress and errors',
            ],
            rows,
          ),
    );
    // Follow a running sync or pass while this view stays open (not after sign-out or leaving it).
    const running = body.sources.some((s) => s.status === 'syncing' || s.progress_phase != null);
    if (running)
      window.setTimeout(() => {
        if (panel.isConnected && panel.closest('[hidden]') === null)
          sourcesView.render(panel, context).catch(() => undefined);
      }, FOLLOW_MS);
  },
};
