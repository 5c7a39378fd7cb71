// The approximate vector path through both KnowledgeStore implementations (issue 22): above the
// threshold a store answers from its IVF index (built inline here, so the first search uses it),
// with recall close to its exact twin's on the same rows, the text search's filters, the same
// answers on every process, and a rebuild after writes. PostgreSQL runs it twice: its in-memory
// index, and pgvector's HNSW index (graded against the exact in-memory path). For PostgreSQL, the
// vector epoch makes a write through another pool visible to the next search of a gateway holding
// the vectors in memory; with pgvector, a write in either mode is seen by a gateway in the other.
import pg from 'pg';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SqliteKnowledgeStore,
  type ChunkInput,
  type EmbeddingSpace,
  type KnowledgeStore,
  type VectorHit,
  type VectorIndexOptions,
  type WorkspaceStore,
} from '../../gateway/knowledge/index.js';
import { migratePostgres, PgKnowledgeStore } from '../../gateway/knowledge/pg-store.js';
import { clusteredVectors } from '../fixtures/clustered-vectors.js';
import { startPostgres, type PostgresServer } from '../infra/postgres-server.js';

const SPACE: EmbeddingSpace = { model: 'clustered', dimensions: 64 };
const DOCS = 30;
const CHUNKS = 100;
const APPROXIMATE: VectorIndexOptions = { approximateAbove: 1_000, build: 'inline' };
const EXACT: VectorIndexOptions = { approximateAbove: Infinity, build: 'inline' };
const ALL = { allowedSourceIds: ['docs', 'tickets'] };

const TRUNCATE =
  'TRUNCATE documents, chunks, chunk_vectors, vector_epochs, chunk_embeddings, vector_twins_filled';

let server: PostgresServer;
let dir: string;

beforeAll(async () => {
  server = startPostgres();
  await migratePostgres(server.admin, server.app.user);
  dir = mkdtempSync(join(tmpdir(), 'agw-vector-index-'));
}, 120_000);
afterAll(() => {
  server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function docId(d: number): string {
  return `d_${String(d).padStart(4, '0')}`;
}

async function upsert(ws: WorkspaceStore, d: number, chunks: number, hash: string): Promise<void> {
  const body: ChunkInput[] = Array.from({ length: chunks }, (_, i) => ({
    chunkNo: i,
    text: `chunk ${i} of document ${d}`,
    charStart: i * 40,
    charEnd: i * 40 + 39,
  }));
  const tickets = d % 3 === 0;
  await ws.upsertDocument(
    {
      docId: docId(d),
      sourceId: tickets ? 'tickets' : 'docs',
      sourceType: tickets ? 'http' : 'files',
      externalId: String(d),
      title: `Document ${d}`,
      url: undefined,
      updatedAt: undefined,
      contentHash: hash,
      bodyChars: chunks * 40,
    },
    body,
  );
}

/** 3,000 chunks of clustered vectors in two sources (a third of the documents are tickets). */
async function fill(ws: WorkspaceStore): Promise<void> {
  const next = clusteredVectors(SPACE.dimensions, 3, 30, 10).draws(1);
  for (let d = 0; d < DOCS; d += 1) await upsert(ws, d, CHUNKS, `h${d}`);
  for (let d = 0; d < DOCS; d += 1)
    await ws.putVectors(
      SPACE,
      Array.from({ length: CHUNKS }, (_, i) => ({
        docId: docId(d),
        chunkNo: i,
        contentHash: `h${d}`,
        vector: next(),
      })),
    );
}

function queries(count: number): Float32Array[] {
  const next = clusteredVectors(SPACE.dimensions, 3, 30, 10).draws(2);
  return Array.from({ length: count }, () => next());
}

const key = (h: VectorHit) => `${h.docId}#${h.chunkNo}`;

interface Pair {
  readonly approximate: KnowledgeStore;
  readonly twin: KnowledgeStore;
  readonly exact: KnowledgeStore;
}

/** Empties the PostgreSQL knowledge tables, so each PostgreSQL store starts from nothing. */
async function emptyPostgres(): Promise<void> {
  const admin = new pg.Client(server.admin);
  await admin.connect();
  await admin.query(TRUNCATE);
  await admin.end();
}

const stores: [string, () => Promise<Pair>][] = [
  [
    'sqlite',
    () => {
      const path = join(dir, 'index.sqlite');
      return Promise.resolve({
        approximate: new SqliteKnowledgeStore(path, APPROXIMATE),
        twin: new SqliteKnowledgeStore(path, APPROXIMATE),
        exact: new SqliteKnowledgeStore(path, EXACT),
      });
    },
  ],
  [
    'postgres',
    async () => {
      await emptyPostgres();
      return {
        approximate: new PgKnowledgeStore(server.app, APPROXIMATE),
        twin: new PgKnowledgeStore(server.app, APPROXIMATE),
        exact: new PgKnowledgeStore(server.app, EXACT),
      };
    },
  ],
  [
    'postgres-pgvector',
    async () => {
      await emptyPostgres();
      return {
        approximate: new PgKnowledgeStore(server.app, undefined, 'pgvector'),
        twin: new PgKnowledgeStore(server.app, undefined, 'pgvector'),
        exact: new PgKnowledgeStore(server.app, EXACT, 'memory'),
      };
    },
  ],
];

describe.each(stores)('%s store, approximate vector search', (name, open) => {
  it(`knowledge:vector-approximate-store — ${name}: recall, filters, the same answers on two processes, rebuilt after writes`, async () => {
    const { approximate, twin, exact } = await open();
    try {
      await fill(exact.workspace('w1'));
      const ws = approximate.workspace('w1');
      let found = 0;
      for (const q of queries(50)) {
        const truth = new Set((await exact.workspace('w1').vectorSearch(ALL, q, SPACE, 10)).map(key));
        const hits = await ws.vectorSearch(ALL, q, SPACE, 10);
        expect(hits).toHaveLength(10);
        found += hits.filter((h) => truth.has(key(h))).length;
        // Another process over the same rows builds the same index: the same answer.
        expect(await twin.workspace('w1').vectorSearch(ALL, q, SPACE, 10)).toEqual(hits);
        // The text search's filters (tickets are every third document).
        const tickets = await ws.vectorSearch({ ...ALL, sourceType: 'http' }, q, SPACE, 10);
        expect(tickets.every((h) => Number(h.docId.slice(2)) % 3 === 0)).toBe(true);
        const docs = await ws.vectorSearch({ allowedSourceIds: ['docs'] }, q, SPACE, 10);
        expect(docs.every((h) => Number(h.docId.slice(2)) % 3 !== 0)).toBe(true);
        expect(
          await ws.vectorSearch({ allowedSourceIds: ['docs'], sourceId: 'tickets' }, q, SPACE, 10),
        ).toEqual([]);
      }
      // The exact path finds all; a broken index about the share of rows it probes (two thirds at
      // this size, where the floor of ~2,000 scored rows dominates).
      expect(found / 500).toBeGreaterThanOrEqual(0.9);

      // Writes through the index: a removed document is gone, a new chunk is found at once.
      const [q] = queries(1) as [Float32Array];
      const top = (await ws.vectorSearch(ALL, q, SPACE, 1))[0] as VectorHit;
      const owner = Number(top.docId.slice(2));
      expect(await ws.deleteDocuments(owner % 3 === 0 ? 'tickets' : 'docs', [top.docId])).toBe(1);
      expect((await ws.vectorSearch(ALL, q, SPACE, 100)).some((h) => h.docId === top.docId)).toBe(false);
      await upsert(ws, 1000, 1, 'new');
      expect(
        await ws.putVectors(SPACE, [{ docId: docId(1000), chunkNo: 0, contentHash: 'new', vector: q }]),
      ).toBe(1);
      const after = await ws.vectorSearch(ALL, q, SPACE, 10);
      expect(after[0]).toMatchObject({ docId: docId(1000), chunkNo: 0 });
      expect(after[0]?.similarity).toBeCloseTo(1, 5);
      expect(await twin.workspace('w1').vectorSearch(ALL, q, SPACE, 10)).toEqual(after);
    } finally {
      await approximate.close();
      await twin.close();
      await exact.close();
    }
  });
});

/** Reader and writer modes, each pair named by the requirement it shows. */
const MODES = [
  ['memory', 'memory', 'knowledge:postgres-vector-epoch — '],
  ['pgvector', 'pgvector', 'knowledge:pgvector-mode-switch — '],
  ['pgvector', 'memory', 'knowledge:pgvector-mode-switch — '],
  ['memory', 'pgvector', 'knowledge:pgvector-mode-switch — '],
] as const;

describe.each(MODES)('PostgreSQL vectors read by %s, written by %s', (reads, writes, id) => {
  it(`${id}a write through another pool is seen on the next search (${reads} reads, ${writes} writes)`, async () => {
    await emptyPostgres();
    // Two gateways: one searches (and may hold the vectors), the other writes.
    const reader = new PgKnowledgeStore(server.app, undefined, reads);
    const writer = new PgKnowledgeStore(server.app, undefined, writes);
    try {
      const w = writer.workspace('acme');
      const near = async (q: Float32Array) =>
        (await reader.workspace('acme').vectorSearch(ALL, q, SPACE, 10)).map((h) => h.docId);
      const [q, other] = queries(2) as [Float32Array, Float32Array];
      expect(await near(q)).toEqual([]);
      await upsert(w, 1, 1, 'a');
      await w.putVectors(SPACE, [{ docId: docId(1), chunkNo: 0, contentHash: 'a', vector: q }]);
      expect(await near(q)).toEqual([docId(1)]);
      await upsert(w, 2, 1, 'b');
      await w.putVectors(SPACE, [{ docId: docId(2), chunkNo: 0, contentHash: 'b', vector: other }]);
      expect(await near(q)).toEqual([docId(1), docId(2)]);
      // A replaced vector, a re-upserted document (its vectors cascade), a deleted one.
      await w.putVectors(SPACE, [{ docId: docId(2), chunkNo: 0, contentHash: 'b', vector: q }]);
      const replaced = await reader.workspace('acme').vectorSearch(ALL, q, SPACE, 10);
      expect(replaced.map((h) => h.similarity.toFixed(5))).toEqual(['1.00000', '1.00000']);
      await upsert(w, 2, 1, 'b2');
      expect(await near(q)).toEqual([docId(1)]);
      await w.deleteDocuments('docs', [docId(1)]);
      expect(await near(q)).toEqual([]);
      // Another workspace's writes are another epoch: nothing of them shows here.
      await upsert(writer.workspace('other'), 3, 1, 'c');
      await writer
        .workspace('other')
        .putVectors(SPACE, [{ docId: docId(3), chunkNo: 0, contentHash: 'c', vector: q }]);
      expect(await near(q)).toEqual([]);
    } finally {
      await reader.close();
      await writer.close();
    }
  });
});
