// The key itself and its limits with current usage (GET /agent/usage), as the limiter counts them.
import { el, replace, show, table, when } from '../dom.js';
import type { View } from '../view.js';
import type { UsageBody } from './activity-types.js';
import { failure } from './failure.js';

function seconds(value: number): string {
  if (value % 86_400 === 0) return `${value / 86_400} d`;
  if (value % 3600 === 0) return `${value / 3600} h`;
  if (value % 60 === 0) return `${value / 60} min`;
  return `${value} s`;
}

export const usageView: View = {
  id: 'usage',
  label: 'Limits and usage',
  async render(panel, { api }) {
    let body: UsageBody;
    try {
      body = await api.get<UsageBody>('/agent/usage');
    } catch (error) {
      return replace(panel, failure('Loading usage', error));
    }
    const key = body.key;
    const facts: [string, string][] = [
      ['Fingerprint', key.fingerprint],
      ['Name', show(key.name)],
      ['Access', key.access],
      ['Tools', key.tools === null ? 'all' : key.tools.join(', ')],
      ['Sources', key.sources === null ? 'all' : key.sources.join(', ')],
      ['Expires', key.expires_at === null ? 'never' : when(key.expires_at)],
    ];
    const rows = body.limits.map((limit) => [
      limit.policy,
      limit.kind,
      `${limit.limit} per ${seconds(limit.window_seconds)}`,
      el(
        'span',
        { class: 'usage' },
        el('progress', {
          max: limit.limit,
          value: Math.min(limit.used, limit.limit),
          'aria-label': `${limit.policy}: ${limit.used} of ${limit.limit} used`,
        }),
        ` ${limit.used} used`,
      ),
      String(limit.remaining),
      when(limit.resets_at),
    ]);
    replace(
      panel,
      el('h3', {}, 'This key'),
      el(
        'dl',
        { class: 'facts' },
        ...facts.flatMap(([term, value]) => [el('dt', {}, term), el('dd', {}, value)]),
      ),
      el('h3', {}, 'Limits'),
      rows.length === 0
        ? el('p', {}, 'No rate limits or quotas apply to this key.')
        : table('Limits and current usage', ['Policy', 'Kind', 'Limit', 'Used', 'Remaining', 'Resets'], rows),
    );
  },
};
