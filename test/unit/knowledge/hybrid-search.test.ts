// Hybrid retrieval (issue 22) on a real SQLite store with in-memory embedding twins: fusion, the
// modes and what responses say about them, the lexical fallback when the provider is missing, fails
// or stalls (and the back-off after a failure), filters and workspace isolation on the vector side,
// and answers whose sentences are chosen by meaning.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { GatewayConfig } from '../../../gateway/config/index.js';
import {
  EmbeddingFailed,
  fuse,
  HashingEmbeddingProvider,
  KnowledgeService,
  QUERY_BACKOFF_MS,
  SqliteKnowledgeStore,
  WorkspaceEmbeddings,
  type EmbeddingProvider,
  type SearchHit,
  type SearchRequest,
} from '../../../gateway/knowledge/index.js';
import { embeddingText } from '../../../gateway/knowledge/embed-source.js';
import { indexDocument, indexInDocs, knowledgeConfig, principalOf } from './knowledge-fixtures.js';

/** A twin whose vectors stand for topics: a text is a mix of the topics whose cue words it contains,
 * so "keeps failing" and "circuit breaker" can mean the same thing without sharing a word. */
class TopicEmbeddings implements EmbeddingProvider {
  readonly model = 'topics-v1';
  readonly dimensions = 4;
  readonly calls: string[][] = [];
  failure: EmbeddingFailed | undefined;
  stall = false;
  static readonly TOPICS: readonly RegExp[] = [
    /breaker|keeps failing|failing|outage|trips/i,
    /invoice|billing|payment/i,
    /key|revoke|credential/i,
    /rotor|turbine|flight/i,
  ];

  embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    this.calls.push([...texts]);
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (this.stall)
      return new Promise((_resolve, reject) =>
        signal?.addEventListener('abort', () => reject(new EmbeddingFailed('aborted'))),
      );
    return Promise.resolve(
      texts.map((text) => {
        const vector = Float32Array.from(TopicEmbeddings.TOPICS, (topic) => (topic.test(text) ? 1 : 0));
        // A text of no topic still gets a valid (non-zero) vector, far from every topic.
        if (vector.every((v) => v === 0)) return Float32Array.from([0.01, 0.01, 0.01, 0.01]);
        return vector;
      }),
    );
  }
}

function hit(docId: string, score: number): SearchHit {
  return {
    docId,
    chunkNo: 0,
    text: docId,
    score,
    title: docId,
    url: undefined,
    sourceId: 's',
    sourceType: 'files',
    updatedAt: undefined,
  };
}

function request(query: string, extra: Partial<SearchRequest> = {}): SearchRequest {
  return { query, limit: 10, connectorId: undefined, sourceType: undefined, snippetChars: 200, ...extra };
}

describe('fusion', () => {
  it('knowledge:fusion-convex — min-max blend, marks which lists found each chunk', () => {
    const fused = fuse(
      [hit('a', 10), hit('b', 6), hit('c', 2)],
      [
        { hit: hit('c', 0), similarity: 0.9 },
        { hit: hit('d', 0), similarity: 0.5 },
        { hit: hit('a', 0), similarity: 0.1 },
      ],
      { kind: 'convex', lexicalWeight: 0.5 },
    );
    expect(fused.map((f) => [f.hit.docId, f.foundBy])).toEqual([
      ['a', 'lexical+semantic'], // 0.5·1 + 0.5·0
      ['c', 'lexical+semantic'], // 0.5·0 + 0.5·1
      ['b', 'lexical'], // 0.5·0.5
      ['d', 'semantic'], // 0.5·0.5, lexical rank ∞ puts it after b
    ]);
    expect(fused[0]?.score).toBeCloseTo(0.5, 6);
    expect(fused[2]?.score).toBeCloseTo(0.25, 6);
  });

  it('knowledge:fusion-rrf — ranks only: a chunk both lists found beats either list alone', () => {
    const fused = fuse(
      [hit('a', 100), hit('b', 99)],
      [
        { hit: hit('c', 0), similarity: 0.99 },
        { hit: hit('b', 0), similarity: 0.98 },
      ],
      { kind: 'rrf', k: 60 },
    );
    expect(fused.map((f) => f.hit.docId)).toEqual(['b', 'a', 'c']);
    expect(fused[0]?.score).toBeCloseTo(0.5 * (1 / 62) + 0.5 * (1 / 62), 9);
  });

  it('knowledge:fusion-one-list — a single candidate per list normalises to 1, not NaN', () => {
    const fused = fuse([hit('a', 3)], [{ hit: hit('b', 0), similarity: 0.2 }]);
    expect(fused.every((f) => Number.isFinite(f.score))).toBe(true);
    expect(fused.map((f) => f.hit.docId)).toEqual(['a', 'b']);
  });
});

describe('hybrid search through the knowledge service', () => {
  let store: SqliteKnowledgeStore;
  let config: GatewayConfig;
  let provider: TopicEmbeddings;
  let now: number;
  let embeddings: WorkspaceEmbeddings;

  /** The fixture config, with embeddings for `acme` only (the others stay lexical). */
  function configWithEmbeddings(): GatewayConfig {
    const base = knowledgeConfig([
      { name: 'acme', dataSources: ['docs', 'hr'], keys: [['*'], ['docs']] },
      { name: 'other', dataSources: ['docs'], keys: [['*']] },
    ]);
    return {
      ...base,
      workspaces: base.workspaces.map((w) =>
        w.name === 'acme'
          ? {
              ...w,
              embeddings: {
                baseUrl: 'http://127.0.0.1:9/v1',
                model: 'topics-v1',
                batchSize: 64,
                concurrency: 2,
                timeoutMs: 30_000,
                maxRetries: 0,
                cacheMaxEntries: 0,
                queryTimeoutMs: 200,
              },
            }
          : w,
      ),
    };
  }

  async function embedAll(workspace: string): Promise<void> {
    const ws = store.workspace(workspace);
    for (const source of ['docs', 'hr']) {
      const space = { model: provider.model, dimensions: provider.dimensions };
      const missing = await ws.chunksWithoutVector(source, space, 1000);
      const vectors = await provider.embed(missing.map((c) => embeddingText(c.title, c.text)));
      await ws.putVectors(
        space,
        missing.map((c, i) => ({
          docId: c.docId,
          chunkNo: c.chunkNo,
          contentHash: c.contentHash,
          vector: vectors[i] as Float32Array,
        })),
      );
    }
    provider.calls.length = 0;
  }

  beforeEach(async () => {
    store = new SqliteKnowledgeStore(':memory:');
    config = configWithEmbeddings();
    provider = new TopicEmbeddings();
    now = 1_000_000;
    embeddings = new WorkspaceEmbeddings(
      () => config,
      () => provider,
      { now: () => now, sleep: () => Promise.resolve() },
    );
    const acme = store.workspace('acme');
    await indexInDocs(acme, {
      externalId: 'breakers.md',
      title: 'Circuit breakers',
      body: 'A circuit breaker trips after half of at least five calls go wrong, and answers at once while open.',
    });
    await indexInDocs(acme, {
      externalId: 'cache.md',
      title: 'Discovery cache',
      body: 'The discovery cache keeps an upstream tool list for thirty seconds before it asks again.',
    });
    await indexDocument(acme, {
      sourceId: 'hr',
      externalId: 'outage.md',
      title: 'Outage policy',
      body: 'During an outage of the payment upstream the HR team is paged.',
    });
    await indexDocument(store.workspace('other'), {
      sourceId: 'docs',
      externalId: 'breakers.md',
      title: 'Circuit breakers',
      body: 'A circuit breaker trips after half of at least five calls go wrong, and answers at once while open.',
    });
    await embedAll('acme');
    await embedAll('other');
  });

  afterEach(async () => {
    await store.close();
  });

  it('knowledge:hybrid-default — with embeddings the default is hybrid; a chunk found by meaning alone ranks', async () => {
    const service = new KnowledgeService(store, { embeddings });
    const { records, retrieval } = await service.search(
      principalOf(config, 'acme', 0),
      request('what happens when an upstream keeps failing'),
    );
    expect(retrieval).toEqual({ requested: 'hybrid', used: 'hybrid', fallback_reason: null });
    const breaker = records.find((r) => r.title === 'Circuit breakers');
    // "keeps failing" shares no indexed word with the breaker chunk: only the vector list found it.
    expect(breaker?.found_by).toBe('semantic');
    expect(records.map((r) => r.found_by)).toContain('lexical+semantic');
    expect(records.every((r) => r.found_by !== undefined)).toBe(true);
  });

  it('knowledge:hybrid-unchanged-without-embeddings — no provider: no retrieval field, no found_by', async () => {
    const service = new KnowledgeService(store, { embeddings });
    const outcome = await service.search(principalOf(config, 'other', 0), request('circuit breaker'));
    expect(outcome.retrieval).toBeUndefined();
    expect(outcome.records.length).toBeGreaterThan(0);
    expect(outcome.records.every((r) => !('found_by' in r))).toBe(true);
    const plain = new KnowledgeService(store);
    const same = await plain.search(principalOf(config, 'other', 0), request('circuit breaker'));
    expect(same.records).toEqual(outcome.records);
  });

  it('knowledge:hybrid-modes — lexical and semantic on request; semantic scores are cosines', async () => {
    const service = new KnowledgeService(store, { embeddings });
    const principal = principalOf(config, 'acme', 0);
    const lexical = await service.search(principal, request('keeps failing', { mode: 'lexical' }));
    expect(lexical.retrieval).toEqual({ requested: 'lexical', used: 'lexical', fallback_reason: null });
    expect(lexical.records.every((r) => r.found_by === 'lexical')).toBe(true);
    expect(provider.calls).toEqual([]);
    const semantic = await service.search(principal, request('keeps failing', { mode: 'semantic' }));
    expect(semantic.retrieval?.used).toBe('semantic');
    expect(semantic.records[0]?.title).toBe('Circuit breakers');
    expect(semantic.records.every((r) => r.found_by === 'semantic' && r.score <= 1)).toBe(true);
  });

  it('knowledge:hybrid-filters — the vector side honours the key and the request filters', async () => {
    const service = new KnowledgeService(store, { embeddings });
    // Key 1 of acme sees `docs` only: the `hr` outage chunk is as close by meaning but never shown.
    const narrow = await service.search(
      principalOf(config, 'acme', 1),
      request('outage', { mode: 'semantic' }),
    );
    expect(narrow.records.map((r) => r.connector_id)).not.toContain('hr');
    expect(narrow.records.length).toBeGreaterThan(0);
    const wide = await service.search(
      principalOf(config, 'acme', 0),
      request('outage', { mode: 'semantic' }),
    );
    expect(wide.records.map((r) => r.connector_id)).toContain('hr');
    const bySource = await service.search(
      principalOf(config, 'acme', 0),
      request('outage', { mode: 'semantic', connectorId: 'docs' }),
    );
    expect(bySource.records.every((r) => r.connector_id === 'docs')).toBe(true);
  });

  it('knowledge:hybrid-isolation — identical vectors in another workspace are never returned', async () => {
    const service = new KnowledgeService(store, { embeddings });
    const { records } = await service.search(
      principalOf(config, 'acme', 0),
      request('breaker failing', { mode: 'semantic' }),
    );
    const otherIds = new Set(
      (await store.workspace('other').chunksWithoutVector('docs', { model: 'x', dimensions: 4 }, 100)).map(
        (c) => c.docId,
      ),
    );
    expect(otherIds.size).toBe(1);
    expect(records.some((r) => otherIds.has(r.doc_id))).toBe(false);
  });

  it('knowledge:hybrid-not-configured — a semantic mode without a provider answers lexically and says so', async () => {
    const service = new KnowledgeService(store, { embeddings });
    const { records, retrieval } = await service.search(
      principalOf(config, 'other', 0),
      request('circuit breaker', { mode: 'hybrid' }),
    );
    expect(retrieval).toEqual({ requested: 'hybrid', used: 'lexical', fallback_reason: 'not_configured' });
    expect(records[0]?.found_by).toBe('lexical');
  });

  it('knowledge:hybrid-provider-down — a failing provider: lexical with the reason, then a back-off', async () => {
    const service = new KnowledgeService(store, { embeddings });
    const principal = principalOf(config, 'acme', 0);
    provider.failure = new EmbeddingFailed('http_error', { status: 503 });
    const first = await service.search(principal, request('circuit breaker'));
    expect(first.retrieval).toEqual({ requested: 'hybrid', used: 'lexical', fallback_reason: 'http_error' });
    expect(first.records[0]?.title).toBe('Circuit breakers');
    expect(provider.calls.length).toBe(1);
    // Within the back-off the provider is not asked again: an outage costs one failure, not one per query.
    now += QUERY_BACKOFF_MS - 1;
    const second = await service.search(principal, request('circuit breaker'));
    expect(second.retrieval?.fallback_reason).toBe('http_error');
    expect(provider.calls.length).toBe(1);
    provider.failure = undefined;
    now += 2;
    const third = await service.search(principal, request('circuit breaker'));
    expect(third.retrieval).toEqual({ requested: 'hybrid', used: 'hybrid', fallback_reason: null });
    expect(provider.calls.length).toBe(2);
  });

  it('knowledge:hybrid-provider-stalls — a provider that never answers costs queryTimeoutMs, then lexical', async () => {
    const service = new KnowledgeService(store, { embeddings });
    provider.stall = true;
    const started = performance.now();
    const { retrieval, records } = await service.search(
      principalOf(config, 'acme', 0),
      request('circuit breaker'),
    );
    const elapsed = performance.now() - started;
    expect(retrieval?.fallback_reason).toBe('timeout');
    expect(records[0]?.title).toBe('Circuit breakers');
    expect(elapsed).toBeGreaterThanOrEqual(190);
    expect(elapsed).toBeLessThan(5_000);
  });

  it('knowledge:hybrid-no-vectors-yet — nothing embedded yet: hybrid still finds every document lexically', async () => {
    const fresh = new SqliteKnowledgeStore(':memory:');
    try {
      await indexDocument(fresh.workspace('acme'), {
        sourceId: 'docs',
        externalId: 'new.md',
        title: 'New page',
        body: 'A page synced a moment ago whose vectors are not made yet.',
      });
      const service = new KnowledgeService(fresh, { embeddings });
      const { records, retrieval } = await service.search(
        principalOf(config, 'acme', 0),
        request('page synced'),
      );
      expect(retrieval?.used).toBe('hybrid');
      expect(records.map((r) => [r.title, r.found_by])).toEqual([['New page', 'lexical']]);
    } finally {
      await fresh.close();
    }
  });

  it('knowledge:answer-by-meaning — sentences chosen by embedding similarity, verbatim, cited', async () => {
    const service = new KnowledgeService(store, { embeddings });
    const result = await service.query(
      principalOf(config, 'acme', 0),
      request('what happens when an upstream keeps failing'),
    );
    expect(result.retrieval?.sentences_by).toBe('meaning');
    expect(result.citations[0]?.text).toBe(
      'A circuit breaker trips after half of at least five calls go wrong, and answers at once while open.',
    );
    expect(result.answer).toContain('[1]');
    // The word-overlap answerer, given the same records, picks the cache sentence ("upstream").
    const lexicalOnly = await new KnowledgeService(store).query(
      principalOf(config, 'acme', 0),
      request('what happens when an upstream keeps failing'),
    );
    expect(lexicalOnly.citations[0]?.text).not.toContain('circuit breaker');
    expect(lexicalOnly.retrieval).toBeUndefined();
  });

  it('knowledge:answer-by-meaning-fallback — sentences that cannot be embedded: word overlap, said so', async () => {
    const service = new KnowledgeService(store, { embeddings });
    const principal = principalOf(config, 'acme', 0);
    // The question embeds (hybrid retrieval works) but the sentence call fails.
    const original = provider.embed.bind(provider);
    let calls = 0;
    provider.embed = (texts, signal) => {
      calls += 1;
      return calls === 1 ? original(texts, signal) : Promise.reject(new EmbeddingFailed('rate_limited'));
    };
    const result = await service.query(principal, request('discovery cache upstream tool list'));
    expect(result.retrieval).toMatchObject({ used: 'hybrid', sentences_by: 'word_overlap' });
    expect(result.citations.length).toBeGreaterThan(0);
  });

  it('knowledge:answer-hashing-twin — the hashing twin also drives the service end to end', async () => {
    const hashing = new HashingEmbeddingProvider({ model: 'topics-v1', dimensions: 4 });
    const withHashing = new WorkspaceEmbeddings(
      () => config,
      () => hashing,
    );
    const service = new KnowledgeService(store, { embeddings: withHashing });
    // Stored vectors are of the topic twin's space (same model name, 4 dims): the query still compares.
    const { retrieval } = await service.search(principalOf(config, 'acme', 0), request('circuit breaker'));
    expect(retrieval?.used).toBe('hybrid');
    expect(hashing.calls).toEqual([['circuit breaker']]);
  });
});
