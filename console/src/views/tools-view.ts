// Tools with their permissions (GET /agent/tools): every tool the key can see, the permission a call
// needs and whether this key may make it; a callable tool opens the tool-call form.
import { el, replace, show, table } from '../dom.js';
import type { View } from '../view.js';
import { failure } from './failure.js';

interface ToolRow {
  readonly name: string;
  readonly source: string;
  readonly permission: 'read' | 'write';
  readonly callable: boolean;
  readonly description: string | null;
}

interface ToolsBody {
  readonly tools: readonly ToolRow[];
  readonly unavailable_sources?: readonly { readonly id: string; readonly error_code: string | null }[];
}

export const toolsView: View = {
  id: 'tools',
  label: 'Tools',
  async render(panel, context) {
    let body: ToolsBody;
    try {
      body = await context.api.get<ToolsBody>('/agent/tools');
    } catch (error) {
      return replace(panel, failure('Loading tools', error));
    }
    const rows = body.tools.map((tool) => [
      el('span', { class: 'name' }, tool.name),
      tool.source,
      tool.permission,
      tool.callable
        ? el(
            'button',
            {
              type: 'button',
              class: 'small',
              onclick: () => context.openCall(tool.name),
              'aria-label': `Call ${tool.name}`,
            },
            'Call',
          )
        : el('span', { class: 'muted' }, 'needs a write key'),
      show(tool.description),
    ]);
    const down = body.unavailable_sources ?? [];
    replace(
      panel,
      down.length === 0
        ? null
        : el(
            'p',
            { class: 'error', role: 'status' },
            `Left out, source unavailable: ${down.map((s) => `${s.id} (${show(s.error_code)})`).join(', ')}`,
          ),
      rows.length === 0
        ? el('p', {}, 'This key sees no tools.')
        : table(
            `${rows.length} tool${rows.length === 1 ? '' : 's'}`,
            ['Tool', 'Source', 'Permission', 'This key', 'Description'],
            rows,
          ),
    );
  },
};
