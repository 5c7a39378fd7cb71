// One contract suite for both KnowledgeStore implementations (issue 4, D6): the embedded SQLite FTS5
// store and the PostgreSQL store against a real throwaway PostgreSQL server. Includes the
// cross-workspace property test, and for PostgreSQL a proof that row-level security alone hides
// other workspaces' rows from the application role. Chunk vectors (issue 22) run through the same
// contract: storage, cosine search under the text search's filters, model/length spaces kept apart,
// the missing-vector listing, vectors going with their chunks, and the isolation property. The
// PostgreSQL store runs it twice: vectors ranked in gateway memory, and by pgvector (HNSW).
import fc from 'fast-check';
import pg from 'pg';
import { mkdtempSync, rmSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  chunkText,
  contentHash,
  documentId,
  SqliteKnowledgeStore,
  hashingVector,
  type EmbeddingSpace,
  type KnowledgeStore,
} from '../../gateway/knowledge/index.js';
import { migratePostgres, PgKnowledgeStore } from '../../gateway/knowledge/pg-store.js';
import { PgSourceLock } from '../../gateway/knowledge/pg-source-lock.js';
import { startPostgres, type PostgresServer } from '../infra/postgres-server.js';

let server: PostgresServer;
let dir: string;

beforeAll(async () => {
  server = startPostgres();
  await migratePostgres(server.admin, server.app.user);
  dir = mkdtempSync(join(tmpdir(), 'agw-contract-'));
}, 120_000);
afterAll(() => {
  server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function put(
  store: KnowledgeStore,
  ws: string,
  source: string,
  id: string,
  title: string,
  body: string,
  type = 'files',
): Promise<string> {
  const docId = documentId(ws, source, id);
  await store.workspace(ws).upsertDocument(
    {
      docId,
      sourceId: source,
      sourceType: type,
      externalId: id,
      title,
      url: id,
      updatedAt: '2026-11-22T00:00:00Z',
      contentHash: contentHash(title, body),
      bodyChars: body.length,
    },
    chunkText(body),
  );
  return docId;
}

const SPACE: EmbeddingSpace = { model: 'hashing-v1', dimensions: 64 };

/** Embeds every chunk of a source that lacks a vector in `space` (the hashing twin's vectors). */
async function embedMissing(
  store: KnowledgeStore,
  ws: string,
  source: string,
  space: EmbeddingSpace = SPACE,
): Promise<number> {
  const w = store.workspace(ws);
  const missing = await w.chunksWithoutVector(source, space, 10_000);
  return w.putVectors(
    space,
    missing.map((c) => ({ ...c, vector: hashingVector(`${c.title} ${c.text}`, space.dimensions) })),
  );
}

const ORPHANS = `SELECT count(*) AS n FROM chunk_vectors v WHERE NOT EXISTS (SELECT 1 FROM chunks c
  WHERE c.workspace_id = v.workspace_id AND c.doc_id = v.doc_id AND c.chunk_no = v.chunk_no)`;

let counter = 0;
interface StoreUnderTest {
  readonly open: () => Promise<KnowledgeStore>;
  /** Vectors left without their chunk, read behind the store's back. */
  readonly orphans: () => Promise<number>;
}
/** A PostgreSQL store on a truncated database, its vectors ranked as `vectorSearch` says. */
async function freshPostgres(vectorSearch: 'memory' | 'pgvector'): Promise<KnowledgeStore> {
  const admin = new pg.Client(server.admin);
  await admin.connect();
  await admin.query('TRUNCATE documents, chunks, chunk_vectors, chunk_embeddings, vector_twins_filled');
  await admin.end();
  return new PgKnowledgeStore(server.app, undefined, vectorSearch);
}

async function pgOrphans(): Promise<number> {
  const admin = new pg.Client(server.admin);
  await admin.connect();
  try {
    return Number((await admin.query<{ n: string }>(ORPHANS)).rows[0]?.n);
  } finally {
    await admin.end();
  }
}

const stores: [string, StoreUnderTest][] = [
  [
    'sqlite',
    {
      open: () => Promise.resolve(new SqliteKnowledgeStore(join(dir, `s${(counter += 1)}.sqlite`))),
      orphans: () => {
        const db = new DatabaseSync(join(dir, `s${counter}.sqlite`));
        try {
          return Promise.resolve(Number((db.prepare(ORPHANS).get() as { n: number }).n));
        } finally {
          db.close();
        }
      },
    },
  ],
  ['postgres', { open: () => freshPostgres('memory'), orphans: pgOrphans }],
  ['postgres-pgvector', { open: () => freshPostgres('pgvector'), orphans: pgOrphans }],
];

describe.each(stores)('%s store', (name, { open, orphans }) => {
  it(`knowledge:store-contract — ${name}: search, ranking, filters, replace, delete, paging`, async () => {
    const store = await open();
    try {
      const titleHit = await put(store, 'w1', 'docs', 'a', 'Pelican migration', 'Notes about birds.');
      const bodyHit = await put(store, 'w1', 'docs', 'b', 'Other', 'A pelican was seen near the lake.');
      await put(store, 'w1', 'tickets', 't', 'Ticket', 'The pelican importer fails.', 'http');
      const ws = store.workspace('w1');
      const all = await ws.search(['pelican'], { allowedSourceIds: ['docs', 'tickets'] }, 10);
      expect(all.map((h) => h.docId)).toContain(bodyHit);
      expect(all[0]?.docId).toBe(titleHit);
      expect(
        (await ws.search(['pelican'], { allowedSourceIds: ['docs'] }, 10)).every(
          (h) => h.sourceId === 'docs',
        ),
      ).toBe(true);
      expect(
        (await ws.search(['pelican'], { allowedSourceIds: ['docs', 'tickets'], sourceType: 'http' }, 10)).map(
          (h) => h.sourceId,
        ),
      ).toEqual(['tickets']);
      expect(await ws.search(['pelican'], { allowedSourceIds: [] }, 10)).toEqual([]);
      await put(store, 'w1', 'docs', 'b', 'Other', 'Now about flamingos only.');
      expect((await ws.search(['pelican'], { allowedSourceIds: ['docs'] }, 10)).map((h) => h.docId)).toEqual([
        titleHit,
      ]);
      expect(await ws.deleteDocuments('tickets', [titleHit])).toBe(0);
      expect(await ws.countDocuments('docs')).toBe(2);
      expect(await ws.deleteDocuments('docs', [bodyHit])).toBe(1);
      expect([...(await ws.documentHashes('docs')).keys()]).toEqual([titleHit]);
      const long = await put(
        store,
        'w1',
        'docs',
        'long',
        'Long',
        Array.from({ length: 40 }, (_, i) => `Sentence ${i} about the long document body.`).join(' '),
      );
      const document = await ws.getDocument(long);
      expect(document?.chunkCount).toBeGreaterThan(1);
      const first = await ws.getChunks(long, 0, 1);
      const rest = await ws.getChunks(long, 1, 100);
      expect([...first, ...rest].map((c) => c.chunkNo)).toEqual(
        Array.from({ length: document!.chunkCount }, (_, i) => i),
      );
    } finally {
      await store.close();
    }
  });

  it(`knowledge:vector-store-contract — ${name}: vectors stored, ranked by cosine under the text filters, spaces kept apart`, async () => {
    const store = await open();
    try {
      const a = await put(store, 'w1', 'docs', 'a', 'Pelican migration', 'Notes about birds.');
      const b = await put(store, 'w1', 'docs', 'b', 'Other', 'A pelican was seen near the lake.');
      const t = await put(store, 'w1', 'tickets', 't', 'Ticket', 'The pelican importer fails.', 'http');
      const ws = store.workspace('w1');
      const both = { allowedSourceIds: ['docs', 'tickets'] };
      expect(await ws.vectorSearch(both, hashingVector('pelican', 64), SPACE, 10)).toEqual([]);
      expect(await embedMissing(store, 'w1', 'docs')).toBe(2);
      expect(await embedMissing(store, 'w1', 'tickets')).toBe(1);

      // The chunk's own vector is its nearest neighbour, at cosine 1; the order is by similarity.
      const query = hashingVector('Other A pelican was seen near the lake.', 64);
      const hits = await ws.vectorSearch(both, query, SPACE, 10);
      expect(hits.map((h) => h.docId).sort()).toEqual([a, b, t].sort());
      expect(hits[0]).toMatchObject({ docId: b, chunkNo: 0 });
      expect(hits[0]?.similarity).toBeCloseTo(1, 5);
      const similarities = hits.map((h) => h.similarity);
      expect(similarities).toEqual([...similarities].sort((x, y) => y - x));
      // Cosine, not a dot product of raw vectors: a scaled query ranks and scores the same.
      const scaled = await ws.vectorSearch(
        both,
        query.map((v) => v * 7),
        SPACE,
        10,
      );
      expect(scaled.map((h) => [h.docId, h.similarity.toFixed(5)])).toEqual(
        hits.map((h) => [h.docId, h.similarity.toFixed(5)]),
      );
      expect(await ws.vectorSearch(both, query, SPACE, 1)).toHaveLength(1);

      // The text search's filters, exactly.
      const docsOnly = await ws.vectorSearch({ allowedSourceIds: ['docs'] }, query, SPACE, 10);
      expect(docsOnly.map((h) => h.docId).sort()).toEqual([a, b].sort());
      const http = await ws.vectorSearch({ ...both, sourceType: 'http' }, query, SPACE, 10);
      expect(http.map((h) => h.docId)).toEqual([t]);
      const source = await ws.vectorSearch({ ...both, sourceId: 'tickets' }, query, SPACE, 10);
      expect(source.map((h) => h.docId)).toEqual([t]);
      expect(
        await ws.vectorSearch({ allowedSourceIds: ['docs'], sourceId: 'tickets' }, query, SPACE, 10),
      ).toEqual([]);
      expect(await ws.vectorSearch({ allowedSourceIds: [] }, query, SPACE, 10)).toEqual([]);

      // Another model, or another length, is another space: never compared with the query.
      const other: EmbeddingSpace = { model: 'other-model', dimensions: 64 };
      const [chunkA] = await ws.getChunks(a, 0, 1);
      const hashA = (await ws.getDocument(a))!.contentHash;
      expect(await ws.putVectors(other, [{ docId: a, chunkNo: 0, contentHash: hashA, vector: query }])).toBe(
        1,
      );
      expect((await ws.vectorSearch(both, query, SPACE, 10)).map((h) => h.docId).sort()).toEqual(
        [b, t].sort(),
      );
      expect((await ws.vectorSearch(both, query, other, 10)).map((h) => h.docId)).toEqual([a]);
      const shorter: EmbeddingSpace = { model: 'hashing-v1', dimensions: 32 };
      expect(await ws.vectorSearch(both, hashingVector('pelican', 32), shorter, 10)).toEqual([]);
      expect((await ws.chunksWithoutVector('docs', SPACE, 10)).map((c) => [c.docId, c.text])).toEqual([
        [a, chunkA?.text],
      ]);

      // Refused: a vector of the wrong length, not finite, or zero; a query likewise. Nothing stored.
      const bad = (vector: Float32Array) =>
        ws.putVectors(SPACE, [{ docId: a, chunkNo: 0, contentHash: hashA, vector }]);
      await expect(bad(new Float32Array(32).fill(1))).rejects.toThrow(RangeError);
      await expect(bad(new Float32Array(64))).rejects.toThrow(RangeError);
      await expect(bad(new Float32Array(64).fill(Number.NaN))).rejects.toThrow(RangeError);
      await expect(ws.vectorSearch(both, new Float32Array(32).fill(1), SPACE, 10)).rejects.toThrow(
        RangeError,
      );
      await expect(ws.vectorSearch(both, new Float32Array(64), SPACE, 10)).rejects.toThrow(RangeError);
      expect((await ws.vectorSearch(both, query, other, 10)).map((h) => h.docId)).toEqual([a]);
      // Skipped: a chunk that does not exist, or text read under an older version of the document.
      expect(await ws.putVectors(SPACE, [{ docId: a, chunkNo: 9, contentHash: hashA, vector: query }])).toBe(
        0,
      );
      expect(await ws.putVectors(SPACE, [{ docId: a, chunkNo: 0, contentHash: 'old', vector: query }])).toBe(
        0,
      );
      expect(await ws.vectorProgress('docs', SPACE)).toEqual({ chunks: 2, embedded: 1 });
    } finally {
      await store.close();
    }
  });

  it(`knowledge:vector-missing — ${name}: which chunks of a source lack a vector of a space, and progress`, async () => {
    const store = await open();
    try {
      const body = Array.from({ length: 40 }, (_, i) => `Sentence ${i} about the heron survey.`).join(' ');
      const long = await put(store, 'w1', 'docs', 'long', 'Long', body);
      const short = await put(store, 'w1', 'docs', 'short', 'Short', 'A short note.');
      await put(store, 'w1', 'wiki', 'elsewhere', 'Elsewhere', 'Another source.');
      const ws = store.workspace('w1');
      const chunks = (await ws.getDocument(long))!.chunkCount + 1;
      const missing = await ws.chunksWithoutVector('docs', SPACE, 1000);
      expect(missing).toHaveLength(chunks);
      // By document (each one contiguous), chunk numbers ascending within it.
      const order = missing.map((c) => c.docId).filter((d, k, all) => k === 0 || all[k - 1] !== d);
      expect(new Set(order).size).toBe(order.length);
      for (const docId of order) {
        const numbers = missing.filter((c) => c.docId === docId).map((c) => c.chunkNo);
        expect(numbers).toEqual(numbers.map((_, k) => k));
      }
      expect(missing.find((c) => c.docId === short)).toMatchObject({ title: 'Short', text: 'A short note.' });
      expect(await ws.vectorProgress('docs', SPACE)).toEqual({ chunks, embedded: 0 });
      // Paged: a sync can embed a bounded batch at a time and ask again.
      const first = await ws.chunksWithoutVector('docs', SPACE, 3);
      expect(first).toEqual(missing.slice(0, 3));
      await ws.putVectors(
        SPACE,
        first.map((c) => ({ ...c, vector: hashingVector(c.text, 64) })),
      );
      expect(await ws.chunksWithoutVector('docs', SPACE, 1000)).toEqual(missing.slice(3));
      expect(await ws.vectorProgress('docs', SPACE)).toEqual({ chunks, embedded: 3 });
      expect(await embedMissing(store, 'w1', 'docs')).toBe(chunks - 3);
      expect(await ws.chunksWithoutVector('docs', SPACE, 1000)).toEqual([]);
      expect(await ws.vectorProgress('docs', SPACE)).toEqual({ chunks, embedded: chunks });
      // A new model (or length) needs every chunk again; another source is untouched.
      expect(await ws.chunksWithoutVector('docs', { model: 'next', dimensions: 64 }, 1000)).toHaveLength(
        chunks,
      );
      expect(
        await ws.chunksWithoutVector('docs', { model: 'hashing-v1', dimensions: 128 }, 1000),
      ).toHaveLength(chunks);
      expect(await ws.vectorProgress('wiki', SPACE)).toEqual({ chunks: 1, embedded: 0 });
      expect(await store.workspace('w2').chunksWithoutVector('docs', SPACE, 1000)).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it(`knowledge:vector-cascade — ${name}: vectors go with their chunks on re-upsert, document and source removal`, async () => {
    const store = await open();
    try {
      const body = Array.from({ length: 40 }, (_, i) => `Sentence ${i} about the heron survey.`).join(' ');
      const long = await put(store, 'w1', 'docs', 'long', 'Long', body);
      const keep = await put(store, 'w1', 'docs', 'keep', 'Keep', 'The heron survey runs every spring.');
      await put(store, 'w1', 'tickets', 't1', 'Ticket one', 'Heron importer fails.', 'http');
      await put(store, 'w1', 'tickets', 't2', 'Ticket two', 'Heron exporter fails.', 'http');
      const ws = store.workspace('w1');
      await embedMissing(store, 'w1', 'docs');
      await embedMissing(store, 'w1', 'tickets');
      const all = { allowedSourceIds: ['docs', 'tickets'] };
      const query = hashingVector('heron survey', 64);
      const docsOf = async () =>
        new Set((await ws.vectorSearch(all, query, SPACE, 1000)).map((h) => h.docId));

      // A changed document loses every vector: its chunks are new text.
      await put(store, 'w1', 'docs', 'long', 'Long', 'Now a single short chunk.');
      expect(await docsOf()).not.toContain(long);
      expect((await ws.chunksWithoutVector('docs', SPACE, 100)).map((c) => c.docId)).toEqual([long]);
      expect(await orphans()).toBe(0);
      await embedMissing(store, 'w1', 'docs');
      expect(await docsOf()).toContain(long);

      // A removed document, and a removed source (all its documents), leave no vector behind.
      expect(await ws.deleteDocuments('docs', [long])).toBe(1);
      expect(await docsOf()).toEqual(new Set([keep, ...(await ws.documentHashes('tickets')).keys()]));
      await ws.deleteDocuments('tickets', [...(await ws.documentHashes('tickets')).keys()]);
      expect(await docsOf()).toEqual(new Set([keep]));
      expect(await ws.vectorProgress('tickets', SPACE)).toEqual({ chunks: 0, embedded: 0 });
      expect(await orphans()).toBe(0);
      // A vector made for the removed document's text is not stored afterwards.
      expect(
        await ws.putVectors(SPACE, [
          { docId: long, chunkNo: 0, contentHash: contentHash('Long', body), vector: query },
        ]),
      ).toBe(0);
      expect(await orphans()).toBe(0);
    } finally {
      await store.close();
    }
  });

  it(`knowledge:chunk-hits — ${name}: chunks by key, in key order, with details, under the filters`, async () => {
    const store = await open();
    try {
      const a = await put(store, 'hits', 'docs', 'a', 'Alpha', 'alpha text');
      const b = await put(store, 'hits', 'wiki', 'b', 'Bravo', 'bravo text');
      const all = { allowedSourceIds: ['docs', 'wiki'] };
      const hits = await store.workspace('hits').chunkHits(all, [
        { docId: b, chunkNo: 0 },
        { docId: a, chunkNo: 7 },
        { docId: 'no-such-doc', chunkNo: 0 },
        { docId: a, chunkNo: 0 },
      ]);
      expect(hits.map((h) => [h.docId, h.chunkNo, h.title, h.sourceId, h.score])).toEqual([
        [b, 0, 'Bravo', 'wiki', 0],
        [a, 0, 'Alpha', 'docs', 0],
      ]);
      expect(hits[1]?.text).toBe('alpha text');
      const keys = [
        { docId: a, chunkNo: 0 },
        { docId: b, chunkNo: 0 },
      ];
      expect(
        (await store.workspace('hits').chunkHits({ allowedSourceIds: ['docs'] }, keys)).map((h) => h.docId),
      ).toEqual([a]);
      expect(
        (await store.workspace('hits').chunkHits({ ...all, sourceId: 'wiki' }, keys)).map((h) => h.docId),
      ).toEqual([b]);
      expect(await store.workspace('hits').chunkHits({ ...all, sourceType: 'postgres' }, keys)).toEqual([]);
      expect(await store.workspace('hits').chunkHits({ allowedSourceIds: [] }, keys)).toEqual([]);
      expect(await store.workspace('hits').chunkHits(all, [])).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it(`knowledge:heading-store — ${name}: a chunk's heading path is kept, returned on hits and searched with the title`, async () => {
    if (name === 'postgres') {
      // A database made before the column: migrating again adds it back (additive, idempotent).
      const admin = new pg.Client(server.admin);
      await admin.connect();
      await admin.query('ALTER TABLE chunks DROP COLUMN heading');
      await admin.end();
      await migratePostgres(server.admin, server.app.user);
      await migratePostgres(server.admin, server.app.user);
    }
    const store = await open();
    try {
      const ws = store.workspace('heads');
      const doc = (id: string, title: string) => ({
        docId: documentId('heads', 'docs', id),
        sourceId: 'docs',
        sourceType: 'files',
        externalId: id,
        title,
        url: undefined,
        updatedAt: undefined,
        contentHash: id,
        bodyChars: 100,
      });
      const guide = doc('guide', 'Guide');
      await ws.upsertDocument(guide, [
        { chunkNo: 0, text: 'An introduction to the gateway.', charStart: 0, charEnd: 31 },
        {
          chunkNo: 1,
          text: 'The count of failures before it opens is five.',
          charStart: 31,
          charEnd: 80,
          heading: 'Guide › Circuit breakers',
        },
      ]);
      await ws.upsertDocument(doc('other', 'Other'), [
        { chunkNo: 0, text: 'Nothing about that here.', charStart: 0, charEnd: 24 },
      ]);
      const all = { allowedSourceIds: ['docs'] };
      // Only the heading holds "breakers": the chunk is found by it, and shows its document's title.
      const hits = await ws.search(['breakers'], all, 10);
      expect(hits.map((h) => [h.docId, h.chunkNo, h.title, h.heading])).toEqual([
        [guide.docId, 1, 'Guide', 'Guide › Circuit breakers'],
      ]);
      const keyed = await ws.chunkHits(all, [
        { docId: guide.docId, chunkNo: 1 },
        { docId: guide.docId, chunkNo: 0 },
      ]);
      expect(keyed.map((h) => h.heading)).toEqual(['Guide › Circuit breakers', undefined]);
      expect('heading' in (keyed[1] as object)).toBe(false);
      // A re-upsert without headings leaves none behind.
      await ws.upsertDocument(guide, [{ chunkNo: 0, text: 'Rewritten.', charStart: 0, charEnd: 10 }]);
      expect(await ws.search(['breakers'], all, 10)).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it(`knowledge:isolation-property — ${name}: no search, vector search or read ever crosses workspaces`, async () => {
    const store = await open();
    // Owners accumulate across runs: the store keeps every earlier run's documents too.
    const owner = new Map<string, string>();
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.uniqueArray(fc.stringMatching(/^[a-z]{3,8}$/), { minLength: 2, maxLength: 3 }),
          fc.array(
            fc.tuple(
              fc.nat(2),
              fc.constantFrom('shared', 'common', 'report'),
              fc.stringMatching(/^[a-z]{4,9}$/),
            ),
            { minLength: 3, maxLength: 8 },
          ),
          async (workspaces, docs) => {
            for (const [index, [w, word, marker]] of docs.entries()) {
              const ws = workspaces[w % workspaces.length] as string;
              const docId = await put(
                store,
                ws,
                'docs',
                `${index}-${marker}`,
                `Doc ${marker}`,
                `${word} text ${marker} for ${ws}`,
              );
              owner.set(docId, ws);
            }
            // Every workspace also holds a document identical to one in each other workspace.
            for (const ws of workspaces)
              owner.set(await put(store, ws, 'docs', 'twin', 'Twin', 'the same text in every workspace'), ws);
            for (const ws of workspaces) await embedMissing(store, ws, 'docs');
            const terms = ['shared', 'common', 'report', 'text', ...docs.map(([, , marker]) => marker)];
            for (const ws of workspaces) {
              const hits = await store.workspace(ws).search(terms, { allowedSourceIds: ['docs'] }, 100);
              for (const hit of hits) expect(owner.get(hit.docId)).toBe(ws);
              for (const [docId, docOwner] of owner) {
                if (docOwner === ws) continue;
                expect(await store.workspace(ws).getDocument(docId)).toBeUndefined();
                expect(await store.workspace(ws).getChunks(docId, 0, 10)).toEqual([]);
                // Naming another workspace's chunk (what a vector hit is hydrated by) finds nothing.
                expect(
                  await store
                    .workspace(ws)
                    .chunkHits({ allowedSourceIds: ['docs'] }, [{ docId, chunkNo: 0 }]),
                ).toEqual([]);
              }
              // Vector search, even with a vector identical to another workspace's chunk.
              const queries = [
                'Twin the same text in every workspace',
                ...docs.map(
                  ([w, word, marker]) =>
                    `Doc ${marker} ${word} text ${marker} for ${workspaces[w % workspaces.length]}`,
                ),
              ];
              for (const text of queries) {
                const near = await store
                  .workspace(ws)
                  .vectorSearch({ allowedSourceIds: ['docs'] }, hashingVector(text, 64), SPACE, 100);
                expect(near.length).toBeGreaterThan(0);
                for (const hit of near) expect(owner.get(hit.docId)).toBe(ws);
              }
            }
          },
        ),
        { numRuns: name.startsWith('postgres') ? 12 : 25 },
      );
    } finally {
      await store.close();
    }
  }, 120_000);
});

describe('PostgreSQL row-level security', () => {
  it('knowledge:postgres-rls — the application role sees nothing outside the workspace set for its transaction', async () => {
    const store = new PgKnowledgeStore(server.app);
    await put(store, 'alpha', 'docs', 'x', 'Alpha', 'alpha secret text');
    await put(store, 'beta', 'docs', 'y', 'Beta', 'beta secret text');
    await store.close();
    const client = new pg.Client(server.app);
    await client.connect();
    try {
      expect((await client.query('SELECT count(*)::int AS n FROM documents')).rows[0].n).toBe(0);
      await client.query('BEGIN');
      await client.query("SELECT set_config('agw.workspace', 'alpha', true)");
      const rows = (await client.query('SELECT workspace_id FROM chunks')).rows as { workspace_id: string }[];
      expect(rows.length).toBeGreaterThan(0);
      expect(new Set(rows.map((r) => r.workspace_id))).toEqual(new Set(['alpha']));
      await expect(
        client.query("INSERT INTO documents VALUES ('beta','d','s','files','e','t',null,null,'h',1,1)"),
      ).rejects.toThrow(/row-level security/);
      await client.query('ROLLBACK');
    } finally {
      await client.end();
    }
  });
});

describe('PostgreSQL vector row-level security', () => {
  it('knowledge:postgres-vector-rls — the application role sees and writes no vector outside its workspace', async () => {
    // Written in pgvector mode: each vector also has its pgvector twin (chunk_embeddings).
    const store = new PgKnowledgeStore(server.app, undefined, 'pgvector');
    const text = 'identical secret text';
    for (const ws of ['valpha', 'vbeta']) {
      await put(store, ws, 'docs', 'x', 'Same', text);
      await embedMissing(store, ws, 'docs');
    }
    expect(await store.pgvectorAvailable()).toBe(true);
    await store.close();
    const client = new pg.Client(server.app);
    await client.connect();
    try {
      expect((await client.query('SELECT count(*)::int AS n FROM chunk_vectors')).rows[0].n).toBe(0);
      expect((await client.query('SELECT count(*)::int AS n FROM vector_epochs')).rows[0].n).toBe(0);
      for (const table of ['chunk_embeddings', 'vector_twins_filled'])
        expect((await client.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n).toBe(0);
      await client.query('BEGIN');
      await client.query("SELECT set_config('agw.workspace', 'valpha', true)");
      for (const table of ['chunk_vectors', 'chunk_embeddings']) {
        const rows = (await client.query(`SELECT workspace_id FROM ${table}`)).rows as {
          workspace_id: string;
        }[];
        expect(rows.length).toBeGreaterThan(0);
        expect(new Set(rows.map((r) => r.workspace_id))).toEqual(new Set(['valpha']));
      }
      // pgvector's nearest-neighbour order sees this workspace's twins only, the other's identical one not.
      const nearest = await client.query(
        'SELECT workspace_id FROM chunk_embeddings ORDER BY embedding::vector(64) <=> (SELECT embedding FROM chunk_embeddings LIMIT 1)',
      );
      expect(new Set(nearest.rows.map((r: { workspace_id: string }) => r.workspace_id))).toEqual(
        new Set(['valpha']),
      );
      await client.query('SAVEPOINT twin');
      await expect(
        client.query(
          "INSERT INTO chunk_embeddings SELECT 'vbeta', doc_id, chunk_no, model, dimensions, source_id, source_type, embedding FROM chunk_embeddings",
        ),
      ).rejects.toThrow(/row-level security/);
      await client.query('ROLLBACK TO SAVEPOINT twin');
      // The epochs likewise: one workspace can neither read nor move another's.
      const epochs = (await client.query('SELECT workspace_id FROM vector_epochs')).rows as {
        workspace_id: string;
      }[];
      expect(epochs.map((r) => r.workspace_id)).toEqual(['valpha']);
      expect(
        (await client.query("UPDATE vector_epochs SET epoch = epoch + 1 WHERE workspace_id = 'vbeta'"))
          .rowCount,
      ).toBe(0);
      // Not even through the chunk it would hang from (the foreign key check bypasses the policy).
      const beta = documentId('vbeta', 'docs', 'x');
      await expect(
        client.query(
          "INSERT INTO chunk_vectors VALUES ('vbeta', $1, 0, 'hashing-v1', 64, decode(repeat('00', 256), 'hex'))",
          [beta],
        ),
      ).rejects.toThrow(/row-level security/);
      await client.query('ROLLBACK');
    } finally {
      await client.end();
    }
  });
});

describe('PostgreSQL search plan', () => {
  it('knowledge:postgres-index — under row-level security the application role search can use the GIN index', async () => {
    const store = new PgKnowledgeStore(server.app);
    const admin = new pg.Client(server.admin);
    await admin.connect();
    try {
      // 2,000 chunks in one workspace, one of them with a rare word: the GIN index is the cheap plan
      // for that word; the alternative is reading all 2,000 rows of the workspace through its btree.
      const chunks = Array.from({ length: 2000 }, (_, i) => ({
        chunkNo: i,
        text: i === 1234 ? 'The quetzal ledger is here.' : `Ordinary filler paragraph number ${i}.`,
        charStart: i * 40,
        charEnd: i * 40 + 39,
      }));
      await store.workspace('plan').upsertDocument(
        {
          docId: 'd_plan',
          sourceId: 'docs',
          sourceType: 'files',
          externalId: 'plan.md',
          title: 'Plan',
          url: undefined,
          updatedAt: undefined,
          contentHash: 'h',
          bodyChars: 80_000,
        },
        chunks,
      );
      await admin.query('VACUUM ANALYZE chunks');
      const plan = async () => {
        const client = await store.pool.connect();
        try {
          await client.query('BEGIN');
          await client.query("SELECT set_config('agw.workspace', 'plan', true)");
          // Tiny tables make a sequential scan cheap; the question is which index is usable.
          await client.query('SET LOCAL enable_seqscan = off');
          const { rows } = await client.query<{ 'QUERY PLAN': string }>(
            "EXPLAIN SELECT id FROM chunks WHERE workspace_id = 'plan' AND tsv @@ websearch_to_tsquery('english', 'quetzal')",
          );
          await client.query('ROLLBACK');
          return rows.map((r) => r['QUERY PLAN']).join('\n');
        } finally {
          client.release();
        }
      };
      // The migration ran as a superuser, so the full-text match is LEAKPROOF and usable as an index
      // condition below the policies.
      expect(await store.searchUsesIndex()).toBe(true);
      const withIndex = await plan();
      expect(withIndex, withIndex).toContain('Bitmap Index Scan on chunks_tsv');
      // Without LEAKPROOF, PostgreSQL must apply the policy first and cannot use the index.
      await admin.query('ALTER FUNCTION pg_catalog.ts_match_vq(tsvector, tsquery) NOT LEAKPROOF');
      try {
        expect(await store.searchUsesIndex()).toBe(false);
        expect(await plan()).not.toContain('chunks_tsv');
      } finally {
        await admin.query('ALTER FUNCTION pg_catalog.ts_match_vq(tsvector, tsquery) LEAKPROOF');
      }
    } finally {
      await admin.end();
      await store.close();
    }
  });
});

describe('PostgreSQL sync lock', () => {
  it('knowledge:sync-lock-shared — two gateway processes never sync the same source at once', async () => {
    // Two pools stand for two gateway processes sharing the database.
    const first = new pg.Pool(server.app);
    const second = new pg.Pool(server.app);
    try {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let entered!: () => void;
      const inside = new Promise<void>((resolve) => (entered = resolve));
      const running = new PgSourceLock(first).tryWith('w1/docs', async () => {
        entered();
        await held;
        return 'first';
      });
      await inside;
      expect(
        await new PgSourceLock(second).tryWith('w1/docs', () => Promise.resolve('second')),
      ).toBeUndefined();
      expect(await new PgSourceLock(second).tryWith('w1/other', () => Promise.resolve('other source'))).toBe(
        'other source',
      );
      release();
      expect(await running).toBe('first');
      expect(await new PgSourceLock(second).tryWith('w1/docs', () => Promise.resolve('second'))).toBe(
        'second',
      );
    } finally {
      await first.end();
      await second.end();
    }
  });
});

describe('gateway on the PostgreSQL store', () => {
  it('knowledge:gateway-postgres — the cluster shape indexes and searches through PostgreSQL', async () => {
    const { mkdir, writeFile } = await import('node:fs/promises');
    const { keyRecord, newKey, startHarness } = await import('../support/gateway-harness.js');
    const docs = join(dir, 'pg-docs');
    await mkdir(docs, { recursive: true });
    await writeFile(join(docs, 'note.md'), '# Heron notes\n\nThe heron survey runs every spring.\n');
    const key = newKey();
    const url = `postgresql://${server.app.user}:${server.app.password}@${encodeURIComponent(server.app.host)}:${server.app.port}/${server.app.database}`;
    const h = await startHarness(
      {
        knowledge: { postgres: { connectionString: { env: 'PG_URL' } } },
        workspaces: [
          {
            name: 'pgws',
            dataSources: [{ name: 'notes', type: 'files', path: docs }],
            keys: [keyRecord(key)],
          },
        ],
      },
      { PG_URL: url },
    );
    try {
      const deadline = Date.now() + 15_000;
      let results: { title: string }[] = [];
      while (results.length === 0 && Date.now() < deadline) {
        const response = await fetch(`${h.url}/agent/search`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ query: 'heron survey spring', options: { response_format: 'json' } }),
        });
        results = ((await response.json()) as { results: { title: string }[] }).results;
        if (results.length === 0) await new Promise((r) => setTimeout(r, 100));
      }
      expect(results[0]?.title).toBe('Heron notes');
      expect(h.logs.join('\n').includes(server.app.password + '@')).toBe(false);
    } finally {
      await h.stop();
    }
  });
});

describe.each(['sqlite', 'postgres'] as const)('code in documents (%s)', (storeKind) => {
  it(`knowledge:code-ranks-below-prose — the README's own first question finds prose first and quotes no code (${storeKind})`, async () => {
    const { copyFile, mkdir, readdir } = await import('node:fs/promises');
    const { keyRecord, newKey, startHarness } = await import('../support/gateway-harness.js');
    const docs = join(dir, `readme-${storeKind}`);
    await mkdir(docs, { recursive: true });
    // What the embedded example indexes: the README and the reference pages it links to.
    await copyFile('README.md', join(docs, 'README.md'));
    for (const page of (await readdir('docs')).filter((f) => f.endsWith('.md')))
      await copyFile(join('docs', page), join(docs, page));
    const key = newKey();
    const url = `postgresql://${server.app.user}:${server.app.password}@${encodeURIComponent(server.app.host)}:${server.app.port}/${server.app.database}`;
    const h = await startHarness(
      {
        knowledge:
          storeKind === 'sqlite'
            ? { sqlitePath: join(docs, 'index.sqlite') }
            : { postgres: { connectionString: { env: 'PG_URL' } } },
        workspaces: [
          {
            name: `readme-${storeKind}`,
            dataSources: [{ name: 'readme', type: 'files', path: docs, include: ['**/*.md'] }],
            keys: [keyRecord(key)],
          },
        ],
      },
      { PG_URL: url },
    );
    const post = async (path: string, query: string) =>
      (await (
        await fetch(`${h.url}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ query, options: { response_format: 'json' } }),
        })
      ).json()) as {
        results?: { snippet: string }[];
        citations?: { text: string }[];
      };
    try {
      // Search once the whole set is indexed: results appear with the first documents, and a search
      // that raced the sync ranked what happened to be in (the README's opening) first.
      const deadline = Date.now() + 30_000;
      let synced = false;
      while (!synced && Date.now() < deadline) {
        const sources = (await (
          await fetch(`${h.url}/agent/sources?response_format=json`, {
            headers: { authorization: `Bearer ${key.key}` },
          })
        ).json()) as { sources: { status: string; last_success_at?: string | null }[] };
        synced = sources.sources.every((s) => s.status === 'ready' && (s.last_success_at ?? null) !== null);
        if (!synced) await new Promise((r) => setTimeout(r, 100));
      }
      expect(synced).toBe(true);
      const results = (await post('/agent/search', 'how do I revoke an API key')).results ?? [];
      expect(results.length).toBeGreaterThan(0);
      expect(results[0]?.snippet).not.toMatch(/curl|```/);
      expect(results[0]?.snippet.toLowerCase()).toContain('revok');
      const answer = await post('/agent/query', 'how do I revoke an API key');
      expect(answer.citations?.length).toBeGreaterThan(0);
      for (const citation of answer.citations ?? [])
        expect(citation.text).not.toMatch(/curl |\$KEY|```|-H '/);
    } finally {
      await h.stop();
    }
  });
});
