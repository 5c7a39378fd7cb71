// The tool search engine (issue 23) with the in-memory twins: term splitting, the field-weighted BM25
// ranking of a view, and hybrid ranking with the hashing embedder (fallbacks, background vectors,
// re-embedding on a model change, the pause after a failed pass).
import { describe, expect, it } from 'vitest';
import type { CatalogTool } from '../../../gateway/discovery/index.js';
import {
  EmbeddingFailed,
  HashingEmbeddingProvider,
  type EmbeddingProvider,
} from '../../../gateway/knowledge/index.js';
import {
  FIND_TOOLS_BOUNDS,
  INDEXED_DESCRIPTION_CHARS,
  parseToolQuery,
  queryToolTerms,
  rankLexically,
  RETRY_AFTER_MS,
  toolDocument,
  toolTerms,
  words,
} from '../../../gateway/tool-search/index.js';
import { CATALOG, configWith, manualClock, searchWith, tool } from './tool-fixtures.js';

describe('tool terms', () => {
  it('tools:terms-split — names split on _, -, ., / and camelCase, stop words dropped, stemmed', () => {
    expect(words('createPullRequest')).toEqual(['create', 'pull', 'request']);
    expect(words('getHTTPResponse')).toEqual(['get', 'http', 'response']);
    expect(words('list_issues-v2.beta/all')).toEqual(['list', 'issues', 'v2', 'beta', 'all']);
    expect(toolTerms('Lists the open pull requests')).toEqual(['list', 'open', 'pull', 'request']);
    expect(queryToolTerms('show me what is on my calendar, please')).toEqual(['show', 'calendar']);
    // Only stop words: they are searched rather than nothing.
    expect(queryToolTerms('what is this')).toEqual(['what', 'is', 'thi']);
  });
});

describe('lexical ranking', () => {
  it('tools:lexical-ranking — the tool whose name and description say the task ranks first', () => {
    const documents = CATALOG.map(toolDocument);
    const top = (query: string) => rankLexically(documents, queryToolTerms(query), 3)[0]?.document.tool.name;
    expect(top('open a pull request')).toBe('github__create_pull_request');
    expect(top('GitLab merge request for my project')).toBe('gitlab__create_merge_request');
    expect(top('what time is it in Warsaw')).toBe('time__get_current_time');
    expect(top('create entities in the knowledge graph')).toBe('memory__createEntities');
    expect(top('read a file')).toBe('fs__read_text_file');
    expect(rankLexically(documents, queryToolTerms('zebra'), 3)).toEqual([]);
  });

  it('tools:view-only-statistics — only the view is ranked and counted: scores do not move with tools outside it', () => {
    const view = CATALOG.filter((t) => t.source !== 'gitlab').map(toolDocument);
    const terms = queryToolTerms('create a request');
    const alone = rankLexically(view, terms, 10);
    expect(alone.every((s) => s.document.tool.source !== 'gitlab')).toBe(true);
    // The same view ranked again after the catalog grew (a tool it cannot see) scores identically.
    const grown = [...CATALOG, tool('gitlab', 'create_issue', 'Create an issue request')];
    const sameView = grown.filter((t) => t.source !== 'gitlab').map(toolDocument);
    expect(rankLexically(sameView, terms, 10).map((s) => s.score)).toEqual(alone.map((s) => s.score));
    expect(rankLexically(view, terms, 1)).toHaveLength(1);
  });

  it('tools:long-description-indexed — a word past character 2,000 or 5,000 of a description still finds its tool', () => {
    // Published descriptions run to ~7,000 characters (Desktop Commander's start_search); the only
    // word of the task may sit anywhere in them. Filler of words no task asks for, then the word.
    const filler = (chars: number) =>
      'Returns results page by page with options and examples. '.repeat(chars / 56 + 1).slice(0, chars);
    const late = (at: number, word: string) => `${filler(at)} ${word} ${filler(1_500)}`;
    const past2k = tool('docs', 'lookup', late(2_100, 'zeitgeist'));
    const past5k = tool('commander', 'start_search', late(4_921, 'ripgrep'));
    const documents = [...CATALOG, past2k, past5k].map(toolDocument);
    expect(past5k.description.indexOf('ripgrep')).toBeGreaterThan(4_900);
    const top = (query: string) => rankLexically(documents, queryToolTerms(query), 3)[0]?.document.tool.name;
    expect(top('grep it all with ripgrep')).toBe('commander__start_search');
    expect(top('zeitgeist of the day')).toBe('docs__lookup');
    // The documented bound: a word past INDEXED_DESCRIPTION_CHARS is not indexed.
    const huge = toolDocument(tool('big', 'blob', late(INDEXED_DESCRIPTION_CHARS, 'quokka')));
    expect(rankLexically([huge], queryToolTerms('quokka'), 1)).toEqual([]);
  });
});

describe('hybrid tool search', () => {
  it('tools:hybrid-default — hybrid by default with embeddings, after the view is embedded in the background', async () => {
    const provider = new HashingEmbeddingProvider({ model: 'hashing-v1', dimensions: 64 });
    const { search } = searchWith(provider);
    const first = await search.rank('acme', CATALOG, { query: 'current time zone', limit: 3 });
    // Nothing embedded yet: words answer, and say why.
    expect(first.retrieval).toMatchObject({
      requested: 'hybrid',
      used: 'lexical',
      fallbackReason: 'indexing',
    });
    await search.vectors.settled('acme');
    expect(provider.calls).toHaveLength(1);
    expect(provider.calls[0]).toHaveLength(CATALOG.length);
    const second = await search.rank('acme', CATALOG, { query: 'current time zone', limit: 3 });
    expect(second.retrieval).toMatchObject({ used: 'hybrid', fallbackReason: null, pendingVectors: 0 });
    expect(second.tools[0]?.tool.name).toBe('time__get_current_time');
    expect(second.tools[0]?.foundBy).toBe('lexical+semantic');
    // The query was embedded; the tools were not embedded again.
    expect(provider.calls.slice(1)).toEqual([['current time zone']]);
    const semantic = await search.rank('acme', CATALOG, {
      query: 'current time zone',
      limit: 2,
      mode: 'semantic',
    });
    expect(semantic.retrieval.used).toBe('semantic');
    expect(semantic.tools.every((t) => t.foundBy === 'semantic')).toBe(true);
    expect(semantic.tools).toHaveLength(2);
    const lexical = await search.rank('acme', CATALOG, {
      query: 'current time zone',
      limit: 2,
      mode: 'lexical',
    });
    expect(lexical.retrieval).toMatchObject({ requested: 'lexical', used: 'lexical', fallbackReason: null });
    // A key that sees no tool: nothing to compare with, so the question is not embedded.
    const callsBefore = provider.calls.length;
    const empty = await search.rank('acme', [], { query: 'current time zone', limit: 3 });
    expect(empty.tools).toEqual([]);
    expect(provider.calls).toHaveLength(callsBefore);
  });

  it('tools:hybrid-changes — a changed tool is re-embedded, an unchanged one never; a new model re-embeds all', async () => {
    const provider = new HashingEmbeddingProvider({ model: 'hashing-v1', dimensions: 64 });
    const { search, setConfig } = searchWith(provider);
    await search.rank('acme', CATALOG, { query: 'x', limit: 1 });
    await search.vectors.settled('acme');
    const changed = [...CATALOG.slice(1), tool('github', 'create_pull_request', 'Open a PR (changed).')];
    await search.rank('acme', changed, { query: 'pull request', limit: 1 });
    await search.vectors.settled('acme');
    const toolCalls = provider.calls.filter((texts) => texts.length > 1 || texts[0]?.includes(':') === true);
    expect(toolCalls.at(-1)).toEqual([toolDocument(changed.at(-1) as CatalogTool).text]);
    const other = new HashingEmbeddingProvider({ model: 'hashing-v2', dimensions: 64 });
    const { search: next } = searchWith(other);
    await next.rank('acme', changed, { query: 'x', limit: 1 });
    await next.vectors.settled('acme');
    expect(other.calls[0]).toHaveLength(changed.length);
    setConfig(configWith(false));
    const off = await search.rank('acme', CATALOG, { query: 'pull request', limit: 1, mode: 'hybrid' });
    expect(off.retrieval).toMatchObject({ used: 'lexical', fallbackReason: 'not_configured' });
    expect(off.embeddingsConfigured).toBe(false);
  });

  it('tools:hybrid-fallback — a failing provider: words answer with its reason, and the next pass waits out the pause', async () => {
    const clock = manualClock();
    let failing = true;
    const inner = new HashingEmbeddingProvider({ model: 'hashing-v1', dimensions: 64 });
    let passes = 0;
    const flaky: EmbeddingProvider = {
      model: 'hashing-v1',
      dimensions: 64,
      embed: (texts, signal) => {
        if (texts.length > 1) passes++;
        return failing
          ? Promise.reject(new EmbeddingFailed('http_error', { status: 503 }))
          : inner.embed(texts, signal);
      },
    };
    const { search } = searchWith(flaky, clock);
    await search.rank('acme', CATALOG, { query: 'read a file', limit: 1 });
    await search.vectors.settled('acme');
    const down = await search.rank('acme', CATALOG, { query: 'read a file', limit: 1 });
    expect(down.retrieval).toMatchObject({ used: 'lexical', fallbackReason: 'http_error' });
    expect(down.tools[0]?.tool.name).toBe('fs__read_text_file');
    expect(passes).toBe(1);
    failing = false;
    clock.now += RETRY_AFTER_MS + 1;
    await search.rank('acme', CATALOG, { query: 'read a file', limit: 1 });
    await search.vectors.settled('acme');
    expect(passes).toBe(2);
    const up = await search.rank('acme', CATALOG, { query: 'read a file', limit: 1 });
    expect(up.retrieval.used).toBe('hybrid');
  });
});

describe('tool query parameters', () => {
  it('tools:query-bounds — query, limit and mode are checked and named', () => {
    const parse = (raw: Record<string, unknown>) =>
      parseToolQuery({ query: raw['query'], limit: raw['limit'], mode: raw['mode'] }, FIND_TOOLS_BOUNDS);
    expect(parse({ query: 'x' })).toEqual({ ok: true, request: { query: 'x', limit: 5 } });
    expect(parse({ query: 'x', limit: '7', mode: 'semantic' })).toEqual({
      ok: true,
      request: { query: 'x', limit: 7, mode: 'semantic' },
    });
    const paths = (raw: Record<string, unknown>) => {
      const parsed = parse(raw);
      return parsed.ok ? [] : parsed.problems.map((p) => p.path);
    };
    expect(paths({})).toEqual(['query']);
    expect(paths({ query: '  ' })).toEqual(['query']);
    expect(paths({ query: 'x'.repeat(2001) })).toEqual(['query']);
    expect(paths({ query: 'x', limit: 21 })).toEqual(['limit']);
    expect(paths({ query: 'x', limit: 1.5 })).toEqual(['limit']);
    expect(paths({ query: 'x', limit: '1e3' })).toEqual(['limit']);
    expect(paths({ query: 'x', mode: 'dense' })).toEqual(['mode']);
  });
});
