// Tools embedded when they are discovered (issue 37), with in-memory twins: the indexer hears the
// catalog's source lists and hands the whole catalog to ToolVectors, so the first search is already
// hybrid; changes are embedded by digest (new and changed tools only, vectors of tools that left
// dropped); a failing provider is retried on a timer with exponential backoff, never by a search;
// calls are 32 texts, at most two at once; a config change discovers what changed, and only that.
import { describe, expect, it } from 'vitest';
import { validateConfig, type GatewayConfig, type WorkspaceConfig } from '../../../gateway/config/index.js';
import type { CatalogTool, SourceToolsListener, WorkspaceCatalog } from '../../../gateway/discovery/index.js';
import {
  EmbeddingFailed,
  HashingEmbeddingProvider,
  WorkspaceEmbeddings,
  type EmbeddingProvider,
} from '../../../gateway/knowledge/index.js';
import { silentLogger } from '../../../gateway/telemetry/logger.js';
import {
  RETRY_AFTER_MS,
  RETRY_MAX_MS,
  toolDocument,
  ToolIndexer,
  ToolSearch,
} from '../../../gateway/tool-search/index.js';
import { CATALOG, manualClock, tool } from './tool-fixtures.js';

const SOURCES = [...new Set(CATALOG.map((t) => t.source))];

function configOf(
  workspaces: Record<string, { sources: readonly string[]; embeddings: boolean }>,
): GatewayConfig {
  const result = validateConfig({
    version: 1,
    workspaces: Object.entries(workspaces).map(([name, w]) => ({
      name,
      ...(w.embeddings
        ? { embeddings: { baseUrl: 'http://127.0.0.1:9/v1', model: 'hashing-v1', queryTimeoutMs: 200 } }
        : {}),
      mcpSources: w.sources.map((source) => ({
        name: source,
        transport: 'streamable-http',
        url: `http://127.0.0.1:9/${source}`,
      })),
    })),
  });
  if (!result.ok) throw new Error(`fixture config invalid: ${JSON.stringify(result)}`);
  return result.config;
}

/** The catalog's two faces the indexer uses: its source-tools signal and a workspace listing. */
function fakeCatalog(lists: Record<string, readonly CatalogTool[]>) {
  const listeners: SourceToolsListener[] = [];
  const discovered: string[] = [];
  const emit = (workspace: string, source: string, tools: readonly CatalogTool[]) => {
    for (const listener of listeners) listener(workspace, source, tools);
  };
  const bySource = new Map<string, readonly CatalogTool[]>();
  const listOf = (workspace: string, source: string) => {
    const key = `${workspace}/${source}`;
    const known = bySource.get(key);
    if (known !== undefined) return known;
    const tools = (lists[workspace] ?? []).filter((t) => t.source === source);
    bySource.set(key, tools);
    return tools;
  };
  return {
    discovered,
    emit,
    onSourceTools: (listener: SourceToolsListener) => {
      listeners.push(listener);
    },
    workspaceCatalog: (workspace: WorkspaceConfig): Promise<WorkspaceCatalog> => {
      discovered.push(workspace.name);
      const tools = workspace.mcpSources.flatMap((source) => {
        const list = listOf(workspace.name, source.name);
        emit(workspace.name, source.name, list);
        return list;
      });
      return Promise.resolve({ tools, sources: new Map(), ttlMs: 30_000, taskSources: new Set<string>() });
    },
  };
}

function setUp(
  provider: EmbeddingProvider,
  initial: GatewayConfig,
  lists: Record<string, readonly CatalogTool[]>,
) {
  const clock = manualClock();
  let config = initial;
  const embeddings = new WorkspaceEmbeddings(
    () => config,
    () => provider,
    { now: () => clock.now, sleep: () => Promise.resolve() },
  );
  const search = new ToolSearch(embeddings, { clock: clock.vectorClock });
  const catalog = fakeCatalog(lists);
  const indexer = new ToolIndexer(catalog, search.vectors, () => config, silentLogger);
  return {
    clock,
    search,
    catalog,
    indexer,
    setConfig: (next: GatewayConfig) => {
      config = next;
      indexer.configure();
    },
  };
}

/** The whole CATALOG discovered in `acme`, source by source. */
function emitCatalog(catalog: ReturnType<typeof setUp>['catalog']): void {
  for (const source of SOURCES)
    catalog.emit(
      'acme',
      source,
      CATALOG.filter((t) => t.source === source),
    );
}

const texts = (tools: readonly CatalogTool[]) => tools.map((t) => toolDocument(t).text).sort();

describe('tools embedded at discovery', () => {
  it('tools:indexer-follows-catalog — discovered tools are embedded before any search; changes by digest only', async () => {
    const provider = new HashingEmbeddingProvider({ model: 'hashing-v1', dimensions: 64 });
    const { search, catalog, indexer, setConfig } = setUp(
      provider,
      configOf({ acme: { sources: SOURCES, embeddings: true } }),
      { acme: CATALOG },
    );
    emitCatalog(catalog);
    await indexer.settled('acme');
    expect(provider.calls.flat().sort()).toEqual(texts(CATALOG));
    // The first search ever: hybrid, nothing pending, and only the question is sent.
    const first = await search.rank('acme', CATALOG, { query: 'current time zone', limit: 3 });
    expect(first.retrieval).toMatchObject({
      requested: 'hybrid',
      used: 'hybrid',
      fallbackReason: null,
      pendingVectors: 0,
    });
    expect(provider.calls.at(-1)).toEqual(['current time zone']);
    // The same lists again (a cache hit): nothing is sent.
    const before = provider.calls.length;
    emitCatalog(catalog);
    await indexer.settled('acme');
    expect(provider.calls).toHaveLength(before);
    // One tool changed, one added: only those two texts are sent; the old text's vector goes.
    const changed = tool('github', 'list_issues', 'List the issues of a repository, newest first.');
    const added = tool('github', 'merge_pull_request', 'Merge a pull request.');
    const github = [
      ...CATALOG.filter((t) => t.source === 'github' && t.upstreamName !== 'list_issues'),
      changed,
      added,
    ];
    catalog.emit('acme', 'github', github);
    await indexer.settled('acme');
    expect(provider.calls.slice(before).flat().sort()).toEqual(texts([changed, added]));
    expect(search.vectors.counts('acme')).toEqual({ vectors: CATALOG.length + 1, pending: 0 });
    // A source removed from the config: its tools' vectors go.
    setConfig(configOf({ acme: { sources: SOURCES.filter((s) => s !== 'gitlab'), embeddings: true } }));
    await indexer.settled('acme');
    const gitlab = CATALOG.filter((t) => t.source === 'gitlab').length;
    expect(search.vectors.counts('acme')).toEqual({ vectors: CATALOG.length + 1 - gitlab, pending: 0 });
    // Embeddings turned off: every vector of the workspace goes, and nothing more is embedded.
    setConfig(configOf({ acme: { sources: SOURCES, embeddings: false } }));
    catalog.emit('acme', 'github', [...github]);
    await indexer.settled('acme');
    expect(search.vectors.counts('acme')).toEqual({ vectors: 0, pending: 0 });
    expect(provider.calls.slice(before).flat()).toHaveLength(2);
  });

  it('tools:embedding-retry-backoff — a failing provider is retried on a timer with growing pauses; searches answer by words and send nothing', async () => {
    const inner = new HashingEmbeddingProvider({ model: 'hashing-v1', dimensions: 64 });
    let failing = true;
    let sent = 0;
    const flaky: EmbeddingProvider = {
      model: 'hashing-v1',
      dimensions: 64,
      embed: (batch, signal) => {
        sent += 1;
        return failing
          ? Promise.reject(new EmbeddingFailed('http_error', { status: 503 }))
          : inner.embed(batch, signal);
      },
    };
    const { clock, search, catalog, indexer } = setUp(
      flaky,
      configOf({ acme: { sources: SOURCES, embeddings: true } }),
      { acme: CATALOG },
    );
    emitCatalog(catalog);
    await indexer.settled('acme');
    expect(sent).toBe(1);
    // The pauses double from RETRY_AFTER_MS, each between half and all of its nominal length.
    for (let attempt = 1; attempt <= 8; attempt++) {
      const nominal = Math.min(RETRY_AFTER_MS * 2 ** (attempt - 1), RETRY_MAX_MS);
      const [pause] = clock.pending();
      expect(clock.pending()).toHaveLength(1);
      expect(pause).toBeGreaterThanOrEqual(nominal / 2);
      expect(pause).toBeLessThanOrEqual(nominal);
      // Meanwhile a search answers by words, says why, and neither embeds its question nor retries.
      const down = await search.rank('acme', CATALOG, { query: 'read a file', limit: 1 });
      expect(down.retrieval).toMatchObject({ used: 'lexical', fallbackReason: 'http_error' });
      expect(down.tools[0]?.tool.name).toBe('fs__read_text_file');
      expect(sent).toBe(attempt);
      clock.fire();
      await search.vectors.settled('acme');
      expect(sent).toBe(attempt + 1);
    }
    expect(clock.pending()[0]).toBeLessThanOrEqual(RETRY_MAX_MS);
    failing = false;
    clock.fire();
    await search.vectors.settled('acme');
    expect(clock.pending()).toEqual([]);
    const up = await search.rank('acme', CATALOG, { query: 'read a file', limit: 1 });
    expect(up.retrieval).toMatchObject({ used: 'hybrid', fallbackReason: null, pendingVectors: 0 });
  });

  it('tools:embedding-bounded-calls — 32 texts per call, one pass per workspace, at most two calls at once across workspaces', async () => {
    let inFlight = 0;
    let most = 0;
    const sizes: number[] = [];
    const inner = new HashingEmbeddingProvider({ model: 'hashing-v1', dimensions: 64 });
    const slow: EmbeddingProvider = {
      model: 'hashing-v1',
      dimensions: 64,
      embed: async (batch, signal) => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        sizes.push(batch.length);
        await new Promise((resolve) => setTimeout(resolve, 2));
        inFlight -= 1;
        return inner.embed(batch, signal);
      },
    };
    const names = ['a', 'b', 'c', 'd'];
    const many = (workspace: string) =>
      Array.from({ length: 70 }, (_, i) => tool('big', `tool_${i}`, `Does thing ${i} for ${workspace}.`));
    const lists = Object.fromEntries(names.map((n) => [n, many(n)]));
    const { search, catalog, indexer } = setUp(
      slow,
      configOf(Object.fromEntries(names.map((n) => [n, { sources: ['big'], embeddings: true }]))),
      lists,
    );
    for (const name of names) catalog.emit(name, 'big', lists[name] as CatalogTool[]);
    await Promise.all(names.map((name) => indexer.settled(name)));
    expect(sizes.reduce((sum, n) => sum + n, 0)).toBe(4 * 70);
    expect(Math.max(...sizes)).toBe(32);
    expect(most).toBe(2);
    for (const name of names) expect(search.vectors.counts(name)).toEqual({ vectors: 70, pending: 0 });
  });

  it('tools:indexer-discovers-on-config-change — a workspace added or changed later is discovered and embedded without a request', async () => {
    const provider = new HashingEmbeddingProvider({ model: 'hashing-v1', dimensions: 64 });
    const beta = [tool('time', 'get_current_time', 'Get the current time in a specific timezone.')];
    const { search, catalog, indexer, setConfig } = setUp(
      provider,
      configOf({ acme: { sources: SOURCES, embeddings: true } }),
      { acme: CATALOG, beta, gamma: beta },
    );
    // What is configured when the gateway discovers everything itself (at readiness) is not discovered again.
    indexer.follow();
    setConfig(
      configOf({
        acme: { sources: SOURCES, embeddings: true },
        beta: { sources: ['time'], embeddings: true },
        gamma: { sources: ['time'], embeddings: false },
      }),
    );
    await new Promise((resolve) => setImmediate(resolve));
    await indexer.settled('beta');
    // Only the new workspace with embeddings; the one without is left to its first request.
    expect(catalog.discovered).toEqual(['beta']);
    expect(provider.calls.flat()).toEqual(texts(beta));
    const first = await search.rank('beta', beta, { query: 'what time is it', limit: 1 });
    expect(first.retrieval).toMatchObject({ used: 'hybrid', fallbackReason: null });
    // The same config again: nothing is discovered; acme's sources change: acme is.
    setConfig(
      configOf({
        acme: { sources: SOURCES, embeddings: true },
        beta: { sources: ['time'], embeddings: true },
        gamma: { sources: ['time'], embeddings: false },
      }),
    );
    expect(catalog.discovered).toEqual(['beta']);
    setConfig(
      configOf({
        acme: { sources: SOURCES.filter((s) => s !== 'gitlab'), embeddings: true },
        beta: { sources: ['time'], embeddings: true },
      }),
    );
    expect(catalog.discovered).toEqual(['beta', 'acme']);
  });
});
