// Activity of the workspace over the last hour (GET /agent/activity): request rate and p95 latency
// per route and error class as SVG line charts (with the same numbers in a table), and the sync
// progress of each data source.
import { lineChart, PALETTE_SIZE, type ChartSeries } from '../charts/line-chart.js';
import { el, replace, show, table, when } from '../dom.js';
import type { View } from '../view.js';
import type { ActivityBody, ActivitySeries } from './activity-types.js';
import { failure } from './failure.js';

const label = (s: ActivitySeries) => `${s.route} · ${s.error_class === 'none' ? 'ok' : s.error_class}`;
const total = (s: ActivitySeries) => s.buckets.reduce((sum, b) => sum + b.count, 0);

function seriesOf(
  body: ActivityBody,
  pick: (b: ActivitySeries['buckets'][number]) => number | null,
): ChartSeries[] {
  return busiest(body).map((s) => ({
    label: label(s),
    points: s.buckets.map((b) => [Date.parse(b.start), pick(b)] as const),
  }));
}

/** The busiest series first, as many as there are colours. */
function busiest(body: ActivityBody): ActivitySeries[] {
  return [...body.series].sort((a, b) => total(b) - total(a)).slice(0, PALETTE_SIZE);
}

function syncSection(body: ActivityBody): HTMLElement {
  if (body.sync.length === 0) return el('p', {}, 'No data sources in view.');
  return el(
    'ul',
    { class: 'sync' },
    ...body.sync.map((s) => {
      const progress = s.progress;
      const bar =
        progress === null
          ? null
          : el('progress', {
              max: progress.total ?? 1,
              value: progress.total === null ? 0 : progress.done,
              'aria-label': `${s.source} sync progress`,
            });
      return el(
        'li',
        {},
        el('span', { class: 'name' }, s.source),
        ` ${s.state}`,
        bar,
        progress === null ? '' : ` ${progress.done}/${progress.total ?? '?'}`,
        ` · ${show(s.documents)} documents · ${show(s.chunks)} chunks · started ${when(s.started_at)} · finished ${when(s.finished_at)}`,
        s.error_class === null ? '' : ` · ${s.error_class}`,
      );
    }),
  );
}

export const activityView: View = {
  id: 'activity',
  label: 'Activity',
  async render(panel, { api }) {
    let body: ActivityBody;
    try {
      body = await api.get<ActivityBody>('/agent/activity');
    } catch (error) {
      return replace(panel, failure('Loading activity', error));
    }
    const to = Date.parse(body.now);
    const from = to - body.window_seconds * 1000;
    const perMinute = 60 / body.bucket_seconds;
    const rows = busiest(body).map((s) => {
      const p95 = s.buckets.map((b) => b.p95_ms).filter((v): v is number => v !== null);
      return [label(s), String(total(s)), p95.length === 0 ? '—' : `${Math.max(...p95).toFixed(1)} ms`];
    });
    replace(
      panel,
      el(
        'p',
        { class: 'meta' },
        `Last ${body.window_seconds / 60} minutes in ${body.bucket_seconds} s buckets, counted ${body.scope === 'cluster' ? 'across all replicas' : 'by this replica'}.`,
      ),
      el('h3', {}, 'Requests per minute'),
      lineChart({
        id: 'chart-rate',
        title: 'Requests per minute by route and error class',
        description: `${rows.length} series over the last hour; the table below has the totals.`,
        unit: 'req/min',
        from,
        to,
        series: seriesOf(body, (b) => b.count * perMinute),
      }),
      el('h3', {}, 'Latency (p95)'),
      lineChart({
        id: 'chart-latency',
        title: 'p95 latency in milliseconds by route and error class',
        description: `${rows.length} series over the last hour; minutes without requests are gaps.`,
        unit: 'ms',
        from,
        to,
        series: seriesOf(body, (b) => b.p95_ms),
      }),
      rows.length === 0
        ? el('p', {}, 'No requests in the last hour.')
        : table('Requests in the last hour', ['Route and error class', 'Requests', 'Worst p95'], rows),
      el('h3', {}, 'Sync progress'),
      syncSection(body),
    );
  },
};
