// Sources as the key sees them (GET /agent/sources): state, breaker, last sync or check, document
// counts, skipped tools; chunk counts and sync progress from GET /agent/activity when it is there.
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
  readonly skipped_tool_count: number | null;
  readonly skipped_tools: string | null;
  readonly description: string | null;
}

export interface SourcesBody {
  readonly workspace: string;
  readonly config_revision: string;
  readonly shared_state?: string;
  readonly sources: readonly SourceRow[];
}

export const sourcesView: View = {
  id: 'sources',
  label: 'Sources',
  async render(panel, { api }) {
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
      [s.sync_progress, s.error_code, s.last_error].filter((v) => v !== null).join(' · ') || '—',
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
              'Progress and errors',
            ],
            rows,
          ),
    );
  },
};
