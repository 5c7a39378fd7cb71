// Documents, not fragments (issue 39 goal 2) over a real SQLite store: results collapse to one entry
// per document by default (its best chunk ranks it; the other matching chunks are counted and named),
// group_by chunk keeps one entry per chunk, and a query ranks the same at every limit because every
// search draws the same fixed candidate pool, lexically and hybrid.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Principal } from '../../../gateway/auth/index.js';
import type { GatewayConfig } from '../../../gateway/config/index.js';
import {
  CANDIDATE_POOL,
  HashingEmbeddingProvider,
  KnowledgeService,
  OTHER_CHUNK_IDS_SHOWN,
  SqliteKnowledgeStore,
  WorkspaceEmbeddings,
  collapseByDocument,
  parseChunkId,
  type SearchHit,
  type SearchRecord,
  type SearchRequest,
} from '../../../gateway/knowledge/index.js';
import { embeddingText } from '../../../gateway/knowledge/embed-source.js';
import { seededRandom } from '../../../gateway/knowledge/seeded-random.js';
import { indexDocument, indexInDocs, knowledgeConfig, principalOf } from './knowledge-fixtures.js';

const SMALL_CHUNKS = { targetChars: 160, overlapChars: 0 };

function request(query: string, extra: Partial<SearchRequest> = {}): SearchRequest {
  return { query, limit: 10, connectorId: undefined, sourceType: undefined, snippetChars: 120, ...extra };
}

function hit(docId: string, chunkNo: number): { hit: SearchHit; foundBy: 'lexical' } {
  const searchHit: SearchHit = {
    docId,
    chunkNo,
    text: `${docId} ${chunkNo}`,
    score: 1,
    title: docId,
    url: undefined,
    sourceId: 's',
    sourceType: 'files',
    updatedAt: undefined,
  };
  return { hit: searchHit, foundBy: 'lexical' };
}

/** A corpus where BM25 order and the coverage/proximity re-rank disagree, over many documents of
 * one to six small chunks: the shape that made a limit-derived pool rank differently per limit. */
const WORDS = [
  'turbine',
  'rotor',
  'blade',
  'inspect',
  'balance',
  'flight',
  'engine',
  'bearing',
  'torque',
  'vibration',
  'sensor',
  'pitch',
];
const FILLER = ['alpha', 'beta', 'gamma', 'delta', 'omega', 'kappa', 'sigma', 'theta', 'lambda', 'zeta'];

function sentence(random: () => number): string {
  const length = 6 + Math.floor(random() * 10);
  const words = Array.from({ length }, () => {
    const pool = random() < 0.35 ? WORDS : FILLER;
    return pool[Math.floor(random() * pool.length)] as string;
  });
  return `${words.join(' ')}.`;
}

async function seedCorpus(store: SqliteKnowledgeStore): Promise<void> {
  const random = seededRandom(39);
  const acme = store.workspace('acme');
  for (let d = 0; d < 160; d += 1) {
    const sentences = Array.from({ length: 2 + Math.floor(random() * 12) }, () => sentence(random));
    await indexDocument(
      acme,
      { sourceId: 'docs', externalId: `doc-${d}.md`, title: `Note ${d}`, body: sentences.join(' ') },
      SMALL_CHUNKS,
    );
  }
}

/** Rank, document, chunk and score: what "the same results" means. */
const shape = (records: readonly SearchRecord[]) =>
  records.map((r) => [r.rank, r.doc_id, r.chunk_id, r.score, r.more_chunks, r.other_chunk_ids]);

let store: SqliteKnowledgeStore;
let config: GatewayConfig;
let reader: Principal;

beforeEach(() => {
  store = new SqliteKnowledgeStore(':memory:');
  config = knowledgeConfig([{ name: 'acme', dataSources: ['docs'], keys: [['*']] }]);
  reader = principalOf(config, 'acme', 0);
});

afterEach(async () => {
  await store.close();
});

describe('collapseByDocument', () => {
  it('keeps each document where its best chunk ranked and lists its other chunks best first', () => {
    const entries = collapseByDocument([hit('a', 4), hit('b', 0), hit('a', 1), hit('c', 2), hit('a', 7)]);
    expect(entries.map((e) => [e.best.hit.docId, e.best.hit.chunkNo, e.others])).toEqual([
      ['a', 4, [1, 7]],
      ['b', 0, []],
      ['c', 2, []],
    ]);
  });
});

describe('knowledge:collapse-documents — one entry per document by default', () => {
  async function seedOneLongDocument(): Promise<string> {
    const acme = store.workspace('acme');
    const long = Array.from(
      { length: 40 },
      (_, i) => `Step ${i} of the zephyr turbine inspection checks rotor ${i} for wear.`,
    ).join('\n\n');
    const manual = await indexDocument(
      acme,
      { sourceId: 'docs', externalId: 'manual.md', title: 'Manual', body: long },
      SMALL_CHUNKS,
    );
    await indexInDocs(acme, {
      externalId: 'brief.md',
      title: 'Brief',
      body: 'The zephyr turbine is inspected once a year.',
    });
    await indexInDocs(acme, {
      externalId: 'memo.md',
      title: 'Memo',
      body: 'A turbine memo without the other word.',
    });
    return manual;
  }

  it('one document with many matching chunks takes one slot; group_by chunk gives it many', async () => {
    const manual = await seedOneLongDocument();
    const service = new KnowledgeService(store);
    const grouped = (await service.search(reader, request('zephyr turbine inspection'))).records;
    const chunks = (await service.search(reader, request('zephyr turbine inspection', { groupBy: 'chunk' })))
      .records;

    expect(new Set(grouped.map((r) => r.doc_id)).size).toBe(grouped.length);
    expect(grouped).toHaveLength(3);
    expect(grouped.map((r) => r.rank)).toEqual([1, 2, 3]);
    expect(chunks).toHaveLength(10);
    expect(chunks.filter((r) => r.doc_id === manual).length).toBeGreaterThanOrEqual(8);
    // group_by chunk is the old shape: no collapse columns.
    expect(chunks.every((r) => !('more_chunks' in r) && !('other_chunk_ids' in r))).toBe(true);

    // The document's entry is its best chunk; its other chunks are counted and the best few named,
    // in the order group_by chunk ranks them.
    const entry = grouped.find((r) => r.doc_id === manual)!;
    const manualChunks = (
      await service.search(reader, request('zephyr turbine inspection', { groupBy: 'chunk', limit: 100 }))
    ).records.filter((r) => r.doc_id === manual);
    expect(entry.chunk_id).toBe(manualChunks[0]!.chunk_id);
    expect(entry.score).toBe(manualChunks[0]!.score);
    expect(entry.more_chunks).toBe(manualChunks.length - 1);
    expect(entry.more_chunks).toBeGreaterThan(OTHER_CHUNK_IDS_SHOWN);
    expect(entry.other_chunk_ids).toBe(
      manualChunks
        .slice(1, 1 + OTHER_CHUNK_IDS_SHOWN)
        .map((r) => r.chunk_id)
        .join(';'),
    );
    for (const id of entry.other_chunk_ids!.split(';')) expect(parseChunkId(id)?.docId).toBe(manual);
    // Every column stays a primitive, so TOON renders the results as one table.
    for (const record of grouped)
      expect(Object.values(record).every((v) => v === null || typeof v !== 'object')).toBe(true);
    expect(grouped.filter((r) => r.doc_id !== manual).every((r) => r.more_chunks === 0)).toBe(true);
    expect(grouped.filter((r) => r.doc_id !== manual).every((r) => r.other_chunk_ids === null)).toBe(true);
  });

  it('limit counts documents, and the query answer cites chunks of the documents it lists', async () => {
    const manual = await seedOneLongDocument();
    const service = new KnowledgeService(store);
    const two = (await service.search(reader, request('zephyr turbine', { limit: 2 }))).records;
    expect(two.map((r) => r.doc_id)).toHaveLength(2);
    expect(new Set(two.map((r) => r.doc_id)).size).toBe(2);
    const answer = await service.query(reader, request('zephyr turbine inspection'));
    expect(new Set(answer.sources.map((s) => s.doc_id)).size).toBe(answer.sources.length);
    expect(answer.sources.filter((s) => s.doc_id === manual)).toHaveLength(1);
    expect(answer.citations.length).toBeGreaterThan(0);
    // A citation quotes a chunk of a listed document, not necessarily the document's best chunk.
    for (const citation of answer.citations) {
      expect(answer.sources.map((s) => s.doc_id)).toContain(citation.doc_id);
      expect(citation.chunk_id.startsWith(`${citation.doc_id}#c`)).toBe(true);
    }
  });
});

describe('knowledge:rank-independent-of-limit — limit 10 is the head of limit 30', () => {
  const QUERIES = ['turbine rotor balance', 'inspect blade vibration sensor', 'engine torque pitch flight'];

  it(`lexical: every search draws the same ${CANDIDATE_POOL}-chunk pool`, async () => {
    await seedCorpus(store);
    const service = new KnowledgeService(store);
    for (const query of QUERIES)
      for (const groupBy of ['document', 'chunk'] as const) {
        const ten = (await service.search(reader, request(query, { groupBy, mode: 'lexical' }))).records;
        const thirty = (await service.search(reader, request(query, { groupBy, mode: 'lexical', limit: 30 })))
          .records;
        expect(ten).toHaveLength(10);
        expect(thirty).toHaveLength(30);
        expect(shape(ten), `${query} by ${groupBy}`).toEqual(shape(thirty.slice(0, 10)));
      }
  });

  it('hybrid: the fused and normalised ranking does not move with limit', async () => {
    await seedCorpus(store);
    const provider = new HashingEmbeddingProvider({ model: 'hashing-v1', dimensions: 64 });
    const withEmbeddings: GatewayConfig = {
      ...config,
      workspaces: config.workspaces.map((w) => ({
        ...w,
        embeddings: {
          baseUrl: 'http://127.0.0.1:9/v1',
          model: provider.model,
          batchSize: 64,
          concurrency: 2,
          timeoutMs: 30_000,
          maxRetries: 0,
          cacheMaxEntries: 0,
          queryTimeoutMs: 5_000,
        },
      })),
    };
    const acme = store.workspace('acme');
    const space = { model: provider.model, dimensions: provider.dimensions };
    const missing = await acme.chunksWithoutVector('docs', space, 10_000);
    const vectors = await provider.embed(missing.map((c) => embeddingText(c.title, c.text)));
    await acme.putVectors(
      space,
      missing.map((c, i) => ({
        docId: c.docId,
        chunkNo: c.chunkNo,
        contentHash: c.contentHash,
        vector: vectors[i] as Float32Array,
      })),
    );
    const embeddings = new WorkspaceEmbeddings(
      () => withEmbeddings,
      () => provider,
    );
    const service = new KnowledgeService(store, { embeddings });
    for (const query of QUERIES)
      for (const groupBy of ['document', 'chunk'] as const) {
        const ten = await service.search(reader, request(query, { groupBy }));
        const thirty = await service.search(reader, request(query, { groupBy, limit: 30 }));
        expect(ten.retrieval?.used).toBe('hybrid');
        expect(thirty.records).toHaveLength(30);
        expect(shape(ten.records), `${query} by ${groupBy}`).toEqual(shape(thirty.records.slice(0, 10)));
      }
  });
});
