// The embedding pass of a sync (issue 22) with the hashing twin and a real SQLite store: every chunk
// gets a vector of the workspace's model, an unchanged re-sync makes no embedding call, a changed
// document re-embeds only its chunks, a new model re-embeds all, and a failing provider leaves the
// sync a success with the failure shown in the source's vector state (text search unaffected).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DataSourceConfig, EmbeddingsConfig, GatewayConfig } from '../../../gateway/config/index.js';
import {
  EmbeddingFailed,
  HashingEmbeddingProvider,
  MemorySourceLock,
  SqliteKnowledgeStore,
  SyncEngine,
  WorkspaceEmbeddings,
  type EmbeddingProvider,
  type SourceItem,
} from '../../../gateway/knowledge/index.js';
import { captureLogger, type LoggedLine } from '../support/capture-logger.js';
import { HASHING_EMBEDDINGS as SETTINGS, knowledgeConfig } from './knowledge-fixtures.js';

/** A provider that can be made to fail, wrapping the hashing twin. */
class Flaky implements EmbeddingProvider {
  failure: EmbeddingFailed | undefined;
  constructor(readonly inner: HashingEmbeddingProvider) {}
  get model(): string {
    return this.inner.model;
  }
  get dimensions(): number {
    return this.inner.dimensions;
  }
  embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    return this.inner.embed(texts, signal);
  }
}

const item = (externalId: string, body: string): SourceItem => ({
  externalId,
  title: externalId,
  body,
  url: undefined,
  updatedAt: undefined,
});

/** A connector listing of the given items, one per tick. */
async function* listing(list: readonly SourceItem[]): AsyncGenerator<SourceItem> {
  for (const entry of list) {
    await Promise.resolve();
    yield entry;
  }
}

let store: SqliteKnowledgeStore;
let lines: LoggedLine[];
let items: SourceItem[];
let config: GatewayConfig;
let settings: EmbeddingsConfig;
let providers: Flaky[];
let engine: SyncEngine;
let docs: DataSourceConfig;

function texts(): number {
  return providers.reduce((n, p) => n + p.inner.calls.flat().length, 0);
}

beforeEach(() => {
  store = new SqliteKnowledgeStore(':memory:');
  lines = [];
  items = [
    item('a.md', 'Alpha is about rotors.'),
    item('b.md', 'Bravo is about invoices.'),
    // Three chunks of 1,200 characters or so.
    item(
      'long.md',
      Array.from({ length: 60 }, (_, i) => `Sentence ${i} of the long page.`)
        .join(' ')
        .repeat(4),
    ),
  ];
  const base = knowledgeConfig([{ name: 'acme', dataSources: ['docs'], keys: [] }]);
  settings = SETTINGS;
  config = base;
  docs = base.workspaces[0]!.dataSources[0]!;
  providers = [];
  const embeddings = new WorkspaceEmbeddings(
    () => ({
      ...config,
      workspaces: config.workspaces.map((w) => ({ ...w, embeddings: settings })),
    }),
    (s) => {
      const provider = new Flaky(
        new HashingEmbeddingProvider({ model: s.model, dimensions: s.dimensions ?? 32 }),
      );
      providers.push(provider);
      return provider;
    },
  );
  engine = new SyncEngine(
    store,
    new MemorySourceLock(),
    captureLogger(lines),
    () => ({ items: () => listing(items) }),
    embeddings,
  );
});

afterEach(async () => {
  engine.stop();
  await store.close();
});

const space = () => ({ model: settings.model, dimensions: settings.dimensions ?? 0 });

describe('the embedding pass of a sync', () => {
  it('knowledge:sync-embeds-every-chunk — progress reaches chunks/chunks in the source state', async () => {
    await engine.sync('acme', docs);
    const progress = await store.workspace('acme').vectorProgress('docs', space());
    expect(progress.chunks).toBeGreaterThanOrEqual(5);
    expect(progress.embedded).toBe(progress.chunks);
    expect(engine.state('acme', 'docs').vectors).toEqual({
      status: 'ready',
      model: 'hashing-v1',
      embedded: progress.chunks,
      chunks: progress.chunks,
      lastError: undefined,
    });
    expect(texts()).toBe(progress.chunks);
    expect(lines.some((l) => l.message === 'data source embedded')).toBe(true);
  });

  it('knowledge:sync-embeds-nothing-twice — an unchanged re-sync makes no call; a changed page re-embeds only its chunks', async () => {
    await engine.sync('acme', docs);
    const first = texts();
    await engine.sync('acme', docs);
    expect(texts()).toBe(first);
    items = items.map((i) => (i.externalId === 'a.md' ? item('a.md', 'Alpha is now about turbines.') : i));
    await engine.sync('acme', docs);
    expect(texts()).toBe(first + 1);
    const progress = await store.workspace('acme').vectorProgress('docs', space());
    expect(progress.embedded).toBe(progress.chunks);
  });

  it('knowledge:sync-new-model-re-embeds — another model or length makes every chunk due again', async () => {
    await engine.sync('acme', docs);
    const first = texts();
    settings = { ...SETTINGS, model: 'hashing-v2' };
    await engine.sync('acme', docs);
    expect(texts()).toBe(first * 2);
    expect(engine.state('acme', 'docs').vectors?.model).toBe('hashing-v2');
    settings = { ...SETTINGS, model: 'hashing-v2', dimensions: 16 };
    await engine.sync('acme', docs);
    expect(texts()).toBe(first * 3);
  });

  it('knowledge:sync-embed-failure — the sync succeeds, the failure is shown without secrets, the next sync resumes', async () => {
    settings = { ...SETTINGS };
    await engine.sync('acme', docs); // builds the provider
    items = [...items, item('c.md', 'Charlie is about payroll.')];
    const provider = providers.at(-1) as Flaky;
    provider.failure = new EmbeddingFailed('http_error', { status: 503, attempts: 5 });
    const report = await engine.sync('acme', docs);
    expect(report?.added).toBe(1);
    const state = engine.state('acme', 'docs');
    expect(state.status).toBe('idle');
    expect(state.lastError).toBeUndefined();
    expect(state.vectors).toMatchObject({ status: 'failed' });
    expect(state.vectors?.lastError).toBe('embeddings failed: http_error (HTTP 503, after 5 attempts)');
    expect(state.vectors!.embedded).toBe(state.vectors!.chunks - 1);
    // The new document is searchable by its words meanwhile.
    const hits = await store.workspace('acme').search(['payroll'], { allowedSourceIds: ['docs'] }, 10);
    expect(hits.length).toBe(1);
    expect(lines.some((l) => l.message.startsWith('embedding pass failed') && l.level === 'warn')).toBe(true);
    provider.failure = undefined;
    await engine.sync('acme', docs);
    expect(engine.state('acme', 'docs').vectors).toMatchObject({ status: 'ready', lastError: undefined });
  });

  it('knowledge:sync-without-embeddings — no provider: no vector state and no embedding work', async () => {
    const plain = new SyncEngine(store, new MemorySourceLock(), captureLogger(lines), () => ({
      items: () => listing(items),
    }));
    await plain.sync('acme', docs);
    expect(plain.state('acme', 'docs').vectors).toBeUndefined();
    expect((await store.workspace('acme').vectorProgress('docs', space())).embedded).toBe(0);
  });
});
