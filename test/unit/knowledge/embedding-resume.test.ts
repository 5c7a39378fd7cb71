// An embedding pass that stops resumes by itself (issue 39 goal 4): a provider that fails mid-way and
// then recovers, or a pass cut by its time limit, brings the source to `ready` with every chunk
// embedded once, with no new sync (the connector is listed once); stop() ends a pending resumption.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DataSourceConfig, EmbeddingsConfig } from '../../../gateway/config/index.js';
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

/** The hashing twin behind a switch: fails calls while `down`, takes `delayMs` per call (honouring
 * the abort signal), and counts every call it was asked for. */
class Scripted implements EmbeddingProvider {
  readonly inner = new HashingEmbeddingProvider({ model: 'hashing-v1', dimensions: 32 });
  /** Calls left before the provider goes down (undefined: never). */
  failAfter: number | undefined;
  down = false;
  delayMs = 0;
  asked = 0;
  readonly model = 'hashing-v1';
  readonly dimensions = 32;

  async embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    this.asked += 1;
    if (this.failAfter !== undefined && this.failAfter-- <= 0) this.down = true;
    if (this.down) throw new EmbeddingFailed('http_error', { status: 503, attempts: 1 });
    if (this.delayMs > 0)
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, this.delayMs);
        signal?.addEventListener('abort', () => {
          clearTimeout(timer);
          reject(new EmbeddingFailed('aborted'));
        });
      });
    return this.inner.embed(texts, signal);
  }

  /** Texts embedded (calls that completed). */
  embedded(): number {
    return this.inner.calls.flat().length;
  }
}

let store: SqliteKnowledgeStore;
let lines: LoggedLine[];
let provider: Scripted;
let settings: EmbeddingsConfig;
let listings: number;
let engine: SyncEngine;
let docs: DataSourceConfig;

/** 300 one-chunk documents: five pages of the pass. */
const items: SourceItem[] = Array.from({ length: 300 }, (_, i) => ({
  externalId: `page-${i}.md`,
  title: `Page ${i}`,
  body: `Page ${i} is about subject number ${i}.`,
  url: undefined,
  updatedAt: undefined,
}));

beforeEach(() => {
  store = new SqliteKnowledgeStore(':memory:');
  lines = [];
  provider = new Scripted();
  settings = SETTINGS;
  listings = 0;
  const config = knowledgeConfig([{ name: 'acme', dataSources: ['docs'], keys: [] }]);
  docs = config.workspaces[0]!.dataSources[0]!;
  const embeddings = new WorkspaceEmbeddings(
    () => ({ ...config, workspaces: config.workspaces.map((w) => ({ ...w, embeddings: settings })) }),
    () => provider,
  );
  engine = new SyncEngine(
    store,
    new MemorySourceLock(),
    captureLogger(lines),
    () => ({
      items: async function* () {
        listings += 1;
        for (const entry of items) yield await Promise.resolve(entry);
      },
    }),
    embeddings,
    { passRetry: { baseMs: 40, maxMs: 200 } },
  );
});

afterEach(async () => {
  engine.stop();
  await store.close();
});

/** Waits until the source's vectors are ready (or the deadline passes) and returns them. */
async function readyVectors(deadlineMs = 5_000) {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const vectors = engine.state('acme', 'docs').vectors;
    if (vectors?.status === 'ready' || Date.now() > deadline) return vectors;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('a stopped embedding pass resumes by itself', () => {
  it('knowledge:embed-resumes-after-provider-failure — fails mid-way, recovers: ready, each chunk once, no new sync', async () => {
    provider.failAfter = 2; // the dimensions probe is configured away: two pages, then down
    await engine.sync('acme', docs);
    const stopped = engine.state('acme', 'docs').vectors!;
    expect(stopped).toMatchObject({ status: 'failed', embedded: 128, chunks: 300 });
    expect(stopped.lastError).toBe('embeddings failed: http_error (HTTP 503)');
    expect(Date.parse(stopped.retryAt!)).toBeGreaterThan(Date.now() - 1_000);
    // Down for a couple of resumptions (the backoff grows), then back.
    await new Promise((resolve) => setTimeout(resolve, 150));
    const askedWhileDown = provider.asked;
    expect(askedWhileDown).toBeGreaterThan(2);
    provider.down = false;
    provider.failAfter = undefined;
    const vectors = await readyVectors();
    expect(vectors).toMatchObject({ status: 'ready', embedded: 300, chunks: 300, lastError: undefined });
    expect(vectors?.retryAt).toBeUndefined();
    expect(provider.embedded()).toBe(300);
    expect(listings).toBe(1);
    expect(engine.state('acme', 'docs')).toMatchObject({ status: 'idle', indexing: undefined });
    // Nothing more is asked once ready.
    const asked = provider.asked;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(provider.asked).toBe(asked);
  });

  it('knowledge:embed-resumes-after-pass-limit — a pass cut by passTimeoutMs carries on where it stopped', async () => {
    provider.delayMs = 40;
    settings = { ...SETTINGS, passTimeoutMs: 100 };
    await engine.sync('acme', docs);
    const cut = engine.state('acme', 'docs').vectors!;
    expect(cut.status).toBe('failed');
    expect(cut.embedded).toBeGreaterThan(0);
    expect(cut.embedded).toBeLessThan(300);
    expect(cut.lastError).toBe('embedding pass reached passTimeoutMs (100 ms); it resumes');
    const vectors = await readyVectors();
    expect(vectors).toMatchObject({ status: 'ready', embedded: 300, chunks: 300 });
    expect(provider.embedded()).toBe(300);
    expect(listings).toBe(1);
  });

  it('knowledge:embed-resume-stops-with-engine — stop() drops the pending resumption', async () => {
    provider.failAfter = 1;
    await engine.sync('acme', docs);
    expect(engine.state('acme', 'docs').vectors?.status).toBe('failed');
    engine.stop();
    const asked = provider.asked;
    provider.down = false;
    provider.failAfter = undefined;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(provider.asked).toBe(asked);
    expect(engine.state('acme', 'docs').vectors?.status).toBe('failed');
  });

  it('knowledge:embed-resume-ends-with-config-change — a source that leaves the config is not resumed', async () => {
    const config = knowledgeConfig([{ name: 'acme', dataSources: ['docs'], keys: [] }]);
    provider.failAfter = 1;
    engine.schedule({
      ...config,
      workspaces: config.workspaces.map((w) => ({ ...w, embeddings: settings })),
    });
    const deadline = Date.now() + 5_000;
    while (engine.state('acme', 'docs').vectors?.status !== 'failed' && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(engine.state('acme', 'docs').vectors?.retryAt).toBeDefined();
    engine.schedule({ ...config, workspaces: [] });
    const asked = provider.asked;
    provider.down = false;
    provider.failAfter = undefined;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(provider.asked).toBe(asked);
  });
});
