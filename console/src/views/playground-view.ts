// The search and query playground: POST /agent/search shows ranked snippets; POST /agent/query shows
// the answer with its numbered citations and the records behind it. Results are announced. Results
// are one per document unless "one per chunk" is chosen; a document's other matching chunks are counted.
import { el, replace, show, when } from '../dom.js';
import type { View, ViewContext } from '../view.js';
import { failure } from './failure.js';

interface SearchRecord {
  readonly rank: number;
  readonly doc_id: string;
  readonly chunk_id: string;
  readonly score: number;
  readonly title: string | null;
  readonly snippet: string;
  readonly connector_id: string;
  readonly source_type: string;
  readonly url: string | null;
  readonly updated_at: string | null;
  /** Present when results are grouped by document. */
  readonly more_chunks?: number;
}

interface SearchBody {
  readonly count: number;
  readonly results: readonly SearchRecord[];
}

interface QueryBody {
  readonly answer: string;
  readonly answerer: string;
  readonly fallback_reason: string | null;
  readonly citations: readonly { readonly n: number; readonly chunk_id: string; readonly text: string }[];
  readonly sources: readonly SearchRecord[];
}

function moreChunks(r: SearchRecord): string {
  const more = r.more_chunks ?? 0;
  return more === 0 ? '' : ` · ${more} more matching chunk${more === 1 ? '' : 's'}`;
}

function record(r: SearchRecord): HTMLElement {
  return el(
    'li',
    { class: 'result' },
    el('h4', {}, r.title ?? r.doc_id),
    el('p', { class: 'snippet' }, r.snippet),
    el(
      'p',
      { class: 'meta' },
      `${r.connector_id} (${r.source_type}) · ${show(r.url)} · score ${r.score.toPrecision(3)} · ${r.chunk_id}${moreChunks(r)} · ${when(r.updated_at)}`,
    ),
  );
}

function field(id: string, label: string, control: HTMLElement, hint?: string): HTMLElement {
  return el(
    'div',
    { class: 'field' },
    el('label', { for: id }, label),
    control,
    hint === undefined ? null : el('p', { class: 'hint', id: `${id}-hint` }, hint),
  );
}

async function run(
  form: HTMLFormElement,
  out: HTMLElement,
  context: ViewContext,
  action: string,
): Promise<void> {
  const data = new FormData(form);
  const text = (name: string) => {
    const value = data.get(name);
    return typeof value === 'string' ? value : '';
  };
  const mode = text('mode');
  const body = {
    query: text('query'),
    limit: Number(text('limit') || 10),
    options: {
      snippet_chars: Number(text('snippet') || 300),
      ...(mode === '' ? {} : { mode }),
      group_by: text('group') || 'document',
    },
  };
  replace(out, el('p', { class: 'muted' }, action === 'query' ? 'Answering…' : 'Searching…'));
  try {
    if (action === 'query') {
      const answer = await context.api.post<QueryBody>('/agent/query', body);
      replace(
        out,
        el('h3', {}, 'Answer'),
        el(
          'p',
          { class: 'answer' },
          answer.answer === '' ? 'No answer: nothing relevant was found.' : answer.answer,
        ),
        el(
          'p',
          { class: 'meta' },
          `by ${answer.answerer}${answer.fallback_reason === null ? '' : ` (fallback: ${answer.fallback_reason})`}`,
        ),
        el('h3', {}, 'Citations'),
        el(
          'ol',
          { class: 'citations' },
          ...answer.citations.map((c) => {
            const cited = answer.sources.find((s) => s.chunk_id === c.chunk_id);
            const from =
              cited === undefined ? '' : `${cited.title ?? cited.doc_id} · ${cited.connector_id} · `;
            return el(
              'li',
              { value: c.n },
              el('blockquote', {}, c.text),
              el('p', { class: 'meta' }, `${from}${c.chunk_id}`),
            );
          }),
        ),
        el('h3', {}, 'Sources'),
        el('ol', { class: 'results' }, ...answer.sources.map(record)),
      );
      context.announce(`Answer ready with ${answer.citations.length} citations.`);
      return;
    }
    const found = await context.api.post<SearchBody>('/agent/search', body);
    replace(
      out,
      el('h3', {}, `${found.count} result${found.count === 1 ? '' : 's'}`),
      el('ol', { class: 'results' }, ...found.results.map(record)),
    );
    context.announce(`${found.count} search results.`);
  } catch (error) {
    replace(out, failure(action === 'query' ? 'The query' : 'The search', error));
    context.announce('The request failed.');
  }
}

export const playgroundView: View = {
  id: 'playground',
  label: 'Search and query',
  async render(panel, context) {
    const out = el('div', { class: 'output', 'aria-live': 'polite' });
    const query = el('textarea', { id: 'pg-query', name: 'query', required: true, maxlength: 2000, rows: 3 });
    const mode = el(
      'select',
      { id: 'pg-mode', name: 'mode' },
      el('option', { value: '' }, 'default'),
      el('option', { value: 'lexical' }, 'lexical'),
      el('option', { value: 'semantic' }, 'semantic'),
      el('option', { value: 'hybrid' }, 'hybrid'),
    );
    const group = el(
      'select',
      { id: 'pg-group', name: 'group' },
      el('option', { value: 'document' }, 'one per document'),
      el('option', { value: 'chunk' }, 'one per chunk'),
    );
    const form = el(
      'form',
      { class: 'stack', novalidate: false },
      field('pg-query', 'Question or search words', query),
      el(
        'div',
        { class: 'row' },
        field(
          'pg-limit',
          'Results',
          el('input', { id: 'pg-limit', name: 'limit', type: 'number', min: 1, max: 100, value: 5 }),
        ),
        field(
          'pg-snippet',
          'Snippet characters',
          el('input', { id: 'pg-snippet', name: 'snippet', type: 'number', min: 40, max: 2000, value: 300 }),
        ),
        field('pg-mode', 'Mode', mode),
        field('pg-group', 'Grouping', group),
      ),
      el(
        'div',
        { class: 'row' },
        el('button', { type: 'submit', value: 'search' }, 'Search'),
        el('button', { type: 'submit', value: 'query' }, 'Ask'),
      ),
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const submitter = event.submitter;
      const action = submitter instanceof HTMLButtonElement ? submitter.value : 'search';
      void run(form, out, context, action);
    });
    replace(panel, form, out);
    await Promise.resolve();
  },
};
