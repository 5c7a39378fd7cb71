// The embedded KnowledgeStore (D7) on a real node:sqlite database: BM25 search with filters,
// incremental-sync bookkeeping, paging, persistence, and workspace isolation (spec §1).
import { DatabaseSync } from 'node:sqlite';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  SqliteKnowledgeStore,
  contentHash,
  hashingVector,
  type WorkspaceStore,
} from '../../../gateway/knowledge/index.js';
import { makeTempDir, removeTempDir } from '../support/temp-dir.js';
import { indexDocument, indexInDocs } from './knowledge-fixtures.js';

const ALL = { allowedSourceIds: ['docs', 'wiki', 'tickets'] };

let store: SqliteKnowledgeStore;
let ws: WorkspaceStore;

beforeEach(() => {
  store = new SqliteKnowledgeStore(':memory:');
  ws = store.workspace('acme');
});

afterEach(async () => {
  await store.close();
});

describe('SqliteKnowledgeStore: workspaces', () => {
  it('refuses an empty workspace id', () => {
    expect(() => store.workspace('')).toThrow();
  });

  it('reports the workspace it is scoped to', () => {
    expect(store.workspace('beta').workspaceId).toBe('beta');
  });
});

describe('SqliteKnowledgeStore: search', () => {
  it('finds an upserted chunk with its provenance', async () => {
    const docId = await indexInDocs(ws, {
      externalId: 'revoke.md',
      title: 'Revoking keys',
      body: 'To revoke an API key run the revoke command.',
      url: 'https://docs.example/revoke',
    });
    const hits = await ws.search(['command'], ALL, 10);
    expect(hits).toEqual([
      {
        docId,
        chunkNo: 0,
        text: 'To revoke an API key run the revoke command.',
        score: expect.any(Number) as number,
        title: 'Revoking keys',
        url: 'https://docs.example/revoke',
        sourceId: 'docs',
        sourceType: 'files',
        updatedAt: undefined,
      },
    ]);
    expect(hits[0]!.score).toBeGreaterThan(0);
  });

  it('matches terms by porter stem and ORs them', async () => {
    const a = await indexInDocs(ws, { externalId: 'a', title: 'A', body: 'Rotor inspections happen daily.' });
    const b = await indexInDocs(ws, { externalId: 'b', title: 'B', body: 'The turbine is balanced.' });
    await indexInDocs(ws, { externalId: 'c', title: 'C', body: 'Nothing relevant.' });
    expect((await ws.search(['inspecting'], ALL, 10)).map((h) => h.docId)).toEqual([a]);
    expect(
      (await ws.search(['inspection', 'turbine', 'absentword'], ALL, 10)).map((h) => h.docId).sort(),
    ).toEqual([a, b].sort());
    expect(await ws.search(['absentword'], ALL, 10)).toEqual([]);
    expect(await ws.search([], ALL, 10)).toEqual([]);
  });

  it('ranks a title hit above a body-only hit', async () => {
    const body = await indexInDocs(ws, {
      externalId: 'body',
      title: 'Operations handbook',
      body: 'Chapter seven mentions the flamingo protocol once among many other words about operations.',
    });
    const title = await indexInDocs(ws, {
      externalId: 'title',
      title: 'Flamingo protocol',
      body: 'Chapter seven mentions the handshake once among many other words about operations.',
    });
    const hits = await ws.search(['flamingo'], ALL, 10);
    expect(hits.map((h) => h.docId)).toEqual([title, body]);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
  });

  it('ranks more matching terms higher and respects the limit', async () => {
    const one = await indexInDocs(ws, { externalId: '1', title: 'x', body: 'alpha words here and there.' });
    const three = await indexInDocs(ws, {
      externalId: '3',
      title: 'x',
      body: 'alpha bravo charlie words here.',
    });
    const two = await indexInDocs(ws, { externalId: '2', title: 'x', body: 'alpha bravo words here.' });
    const hits = await ws.search(['alpha', 'bravo', 'charlie'], ALL, 10);
    expect(hits.map((h) => h.docId)).toEqual([three, two, one]);
    expect((await ws.search(['alpha', 'bravo', 'charlie'], ALL, 2)).map((h) => h.docId)).toEqual([
      three,
      two,
    ]);
  });

  it('treats terms as literal words, never as FTS5 query syntax', async () => {
    await indexInDocs(ws, { externalId: 'a', title: 'A', body: 'rotor blade' });
    for (const term of ['rotor" OR "blade', 'NEAR(rotor blade)', '*', 'ws:anything', 'AND', '"', 'rotor*'])
      await expect(ws.search([term], ALL, 10)).resolves.toBeInstanceOf(Array);
    expect(await ws.search(['rotor" OR "zzz'], ALL, 10)).toEqual([]);
  });

  it('filters by source id and source type', async () => {
    const docs = await indexInDocs(ws, { externalId: 'a', title: 'A', body: 'shared word' });
    const wiki = await indexDocument(ws, {
      sourceId: 'wiki',
      sourceType: 'wiki',
      externalId: 'a',
      title: 'A',
      body: 'shared word',
    });
    const tickets = await indexDocument(ws, {
      sourceId: 'tickets',
      sourceType: 'wiki',
      externalId: 'a',
      title: 'A',
      body: 'shared word',
    });
    const ids = async (filters: Parameters<WorkspaceStore['search']>[1]) =>
      (await ws.search(['shared'], filters, 10)).map((h) => h.docId).sort();
    expect(await ids(ALL)).toEqual([docs, wiki, tickets].sort());
    expect(await ids({ ...ALL, sourceId: 'wiki' })).toEqual([wiki]);
    expect(await ids({ ...ALL, sourceType: 'wiki' })).toEqual([wiki, tickets].sort());
    expect(await ids({ ...ALL, sourceType: 'files' })).toEqual([docs]);
    expect(await ids({ ...ALL, sourceId: 'docs', sourceType: 'wiki' })).toEqual([]);
    expect(await ids({ ...ALL, sourceId: 'nope' })).toEqual([]);
  });

  it('searches only the allowed sources, and nothing when none is allowed', async () => {
    const docs = await indexInDocs(ws, { externalId: 'a', title: 'A', body: 'shared word' });
    await indexDocument(ws, { sourceId: 'wiki', externalId: 'a', title: 'A', body: 'shared word' });
    expect((await ws.search(['shared'], { allowedSourceIds: ['docs'] }, 10)).map((h) => h.docId)).toEqual([
      docs,
    ]);
    expect(await ws.search(['shared'], { allowedSourceIds: [] }, 10)).toEqual([]);
    expect(await ws.search(['shared'], { allowedSourceIds: ['docs'], sourceId: 'wiki' }, 10)).toEqual([]);
    expect(await ws.search(['shared'], { allowedSourceIds: ['other'] }, 10)).toEqual([]);
  });
});

describe('SqliteKnowledgeStore: filtered search over many matches', () => {
  it('finds an allowed match ranked below many better matches of hidden sources', async () => {
    for (let i = 0; i < 120; i += 1)
      await indexDocument(ws, {
        sourceId: 'wiki',
        externalId: `w${i}`,
        title: 'Heron heron',
        body: `heron heron heron ${i}`,
      });
    const weak = await indexInDocs(ws, {
      externalId: 'weak',
      title: 'Birds',
      body: `A long page about many birds that mentions the heron only once. ${'filler words here. '.repeat(40)}`,
    });
    expect((await ws.search(['heron'], { allowedSourceIds: ['docs'] }, 5)).map((h) => h.docId)).toEqual([
      weak,
    ]);
    expect((await ws.search(['heron'], { ...ALL, sourceId: 'docs' }, 5)).map((h) => h.docId)).toEqual([weak]);
    const mixed = await ws.search(['heron'], ALL, 200);
    expect(mixed).toHaveLength(121);
    expect(mixed.at(-1)!.docId).toBe(weak);
  });

  // BUG (gateway/knowledge/sqlite-store.ts:127-133, searchTop at 234): the inner FTS query keeps
  // the best `limit * 4 + 20` rows by score alone, and only the outer query breaks ties by doc id. When more
  // rows tie than fit the candidate set, which tied rows survive is arbitrary, so the first page for
  // limit 10 is not the first 10 of the same ranking for limit 200 (ORDER BY score, doc_id promises
  // one total order). Low severity: visible with duplicated or templated documents.
  it('returns the first `limit` hits of one total order, whatever the limit', async () => {
    for (let i = 0; i < 120; i += 1)
      await indexDocument(ws, {
        sourceId: 'wiki',
        externalId: `w${i}`,
        title: 'Heron',
        body: `heron heron ${i}`,
      });
    const all = await ws.search(['heron'], ALL, 200);
    expect(all).toHaveLength(120);
    expect(await ws.search(['heron'], ALL, 10)).toEqual(all.slice(0, 10));
  });
});

describe('SqliteKnowledgeStore: ranking that skips rows of a common term', () => {
  async function corpus(rare: number): Promise<void> {
    for (let i = 0; i < 60; i += 1)
      await indexDocument(ws, {
        sourceId: 'wiki',
        externalId: `g${i}`,
        title: `Gull ${i}`,
        body: `gull gull ${i < rare ? 'heron' : 'plover'} shore ${'sand '.repeat(i % 7)}`,
      });
    for (let i = 0; i < 20; i += 1)
      await indexInDocs(ws, { externalId: `o${i}`, title: 'Other', body: `tern ${i}` });
  }

  it('returns exactly the first rows of the full ranking when the rarer term decides the top', async () => {
    await corpus(12);
    const all = await ws.search(['gull', 'heron'], ALL, 500);
    expect(all).toHaveLength(60);
    for (const limit of [1, 5, 10, 12])
      expect(await ws.search(['gull', 'heron'], ALL, limit)).toEqual(all.slice(0, limit));
  });

  it('ranks every match when the rarer term holds too few rows to decide', async () => {
    await corpus(3);
    const all = await ws.search(['gull', 'heron'], ALL, 500);
    for (const limit of [3, 4, 10])
      expect(await ws.search(['gull', 'heron'], ALL, limit)).toEqual(all.slice(0, limit));
  });
});

describe('SqliteKnowledgeStore: documents', () => {
  it('replaces the chunks of a re-upserted document', async () => {
    const docId = await indexInDocs(ws, { externalId: 'a', title: 'Old title', body: 'obsolete flamingo' });
    await indexInDocs(ws, { externalId: 'a', title: 'New title', body: 'current pelican' });
    expect(await ws.search(['flamingo'], ALL, 10)).toEqual([]);
    expect(await ws.search(['obsolete'], ALL, 10)).toEqual([]);
    const hits = await ws.search(['pelican'], ALL, 10);
    expect(hits.map((h) => [h.docId, h.title, h.text])).toEqual([[docId, 'New title', 'current pelican']]);
    expect(await ws.getChunks(docId, 0, 100)).toHaveLength(1);
    expect(await ws.countDocuments('docs')).toBe(1);
  });

  it('returns a stored document and pages its chunks in order', async () => {
    const body = Array.from({ length: 40 }, (_, i) => `Paragraph ${i} talks about rotor number ${i}.`).join(
      '\n\n',
    );
    const docId = await indexDocument(
      ws,
      { sourceId: 'docs', externalId: 'long.md', title: 'Long', body, url: 'long.md' },
      { targetChars: 200, overlapChars: 20 },
    );
    const document = await ws.getDocument(docId);
    expect(document).toEqual({
      docId,
      sourceId: 'docs',
      sourceType: 'files',
      externalId: 'long.md',
      title: 'Long',
      url: 'long.md',
      updatedAt: undefined,
      contentHash: contentHash('Long', body),
      bodyChars: body.length,
      chunkCount: expect.any(Number) as number,
    });
    const total = document!.chunkCount;
    expect(total).toBeGreaterThan(5);
    const all = await ws.getChunks(docId, 0, 1000);
    expect(all.map((c) => c.chunkNo)).toEqual(Array.from({ length: total }, (_, i) => i));
    for (const chunk of all) {
      expect(chunk.docId).toBe(docId);
      expect(chunk.text).toBe(body.slice(chunk.charStart, chunk.charEnd).trim());
    }
    const paged = [];
    for (let from = 0; from < total; from += 3) paged.push(...(await ws.getChunks(docId, from, 3)));
    expect(paged).toEqual(all);
    expect(await ws.getChunks(docId, total, 10)).toEqual([]);
    expect(await ws.getChunks(docId, 2, 0)).toEqual([]);
    expect(await ws.getDocument('d_missingmissingmissing00')).toBeUndefined();
    expect(await ws.getChunks('d_missingmissingmissing00', 0, 10)).toEqual([]);
  });

  it('keeps document hashes, counts and deletions per source', async () => {
    const a = await indexInDocs(ws, { externalId: 'a', title: 'A', body: 'alpha text' });
    const b = await indexInDocs(ws, { externalId: 'b', title: 'B', body: 'bravo text' });
    const w = await indexDocument(ws, { sourceId: 'wiki', externalId: 'a', title: 'W', body: 'wiki text' });
    expect(await ws.documentHashes('docs')).toEqual(
      new Map([
        [a, contentHash('A', 'alpha text')],
        [b, contentHash('B', 'bravo text')],
      ]),
    );
    expect(await ws.countDocuments('docs')).toBe(2);
    expect(await ws.countDocuments('wiki')).toBe(1);
    expect(await ws.countDocuments('none')).toBe(0);

    expect(await ws.deleteDocuments('docs', [a, 'd_unknownunknownunknown0'])).toBe(1);
    expect(await ws.getDocument(a)).toBeUndefined();
    expect(await ws.getChunks(a, 0, 10)).toEqual([]);
    expect(await ws.search(['alpha'], ALL, 10)).toEqual([]);
    expect([...(await ws.documentHashes('docs')).keys()]).toEqual([b]);
    expect(await ws.countDocuments('docs')).toBe(1);
    expect(await ws.deleteDocuments('docs', [])).toBe(0);
    expect((await ws.search(['text'], ALL, 10)).map((h) => h.docId).sort()).toEqual([b, w].sort());
  });

  it('does not delete a document through the wrong source', async () => {
    const w = await indexDocument(ws, { sourceId: 'wiki', externalId: 'a', title: 'W', body: 'wiki text' });
    expect(await ws.deleteDocuments('docs', [w])).toBe(0);
    expect(await ws.getDocument(w)).toBeDefined();
    expect(await ws.countDocuments('wiki')).toBe(1);
  });

  // BUG (gateway/knowledge/sqlite-store.ts:94-116, removeChunks via deleteDocuments): it removes the
  // chunks (and FTS rows) of every listed doc id before checking that the document belongs to
  // `sourceId`. A doc id of another source keeps its document row but loses all its chunks, so it
  // silently disappears from search while still counted and listed with chunkCount > 0.
  it('leaves another source’s chunks searchable when asked to delete its doc id', async () => {
    const w = await indexDocument(ws, { sourceId: 'wiki', externalId: 'a', title: 'W', body: 'wiki text' });
    await ws.deleteDocuments('docs', [w]);
    expect(await ws.getChunks(w, 0, 10)).toHaveLength(1);
    expect((await ws.search(['wiki'], ALL, 10)).map((h) => h.docId)).toEqual([w]);
  });

  it('rolls back a failed upsert and keeps the previous version', async () => {
    const docId = await indexInDocs(ws, { externalId: 'a', title: 'A', body: 'original text' });
    const before = await ws.getDocument(docId);
    // Two chunks with the same number violate UNIQUE (workspace_id, doc_id, chunk_no).
    const duplicate = { chunkNo: 0, text: 'replacement text', charStart: 0, charEnd: 16 };
    // Wrapped: the store throws synchronously here (see the expected failure below).
    await expect(
      Promise.resolve().then(() =>
        ws.upsertDocument({ ...before!, title: 'B', contentHash: 'changed' }, [duplicate, duplicate]),
      ),
    ).rejects.toThrow(/UNIQUE/);
    expect(await ws.getDocument(docId)).toEqual(before);
    expect((await ws.search(['original'], ALL, 10)).map((h) => h.docId)).toEqual([docId]);
    expect(await ws.search(['replacement'], ALL, 10)).toEqual([]);
  });
  // BUG (gateway/knowledge/sqlite-store.ts:57-92 and the other methods): the methods return
  // promises but throw synchronously, so `store.x(...).catch(...)` does not catch. SyncEngine relies
  // on exactly that (sync-engine.ts:115, `countDocuments(...).catch(() => 0)` in its error path), so a
  // store error there escapes and leaves the source's state at 'syncing'. Low severity.
  it('reports a failed upsert as a rejected promise, not a synchronous throw', async () => {
    const duplicate = { chunkNo: 0, text: 'x', charStart: 0, charEnd: 1 };
    const document = {
      docId: 'd_aaaaaaaaaaaaaaaaaaaaaa',
      sourceId: 'docs',
      sourceType: 'files',
      externalId: 'a',
      title: 'A',
      url: undefined,
      updatedAt: undefined,
      contentHash: 'h',
      bodyChars: 1,
    };
    let pending: Promise<void> | undefined;
    expect(() => {
      pending = ws.upsertDocument(document, [duplicate, duplicate]);
    }).not.toThrow();
    await expect(pending).rejects.toThrow(/UNIQUE/);
  });
});

describe('SqliteKnowledgeStore: persistence', () => {
  it('keeps documents and the index in a file across reopening', async () => {
    const dir = await makeTempDir('agw-knowledge-');
    try {
      const path = join(dir, 'knowledge.db');
      const first = new SqliteKnowledgeStore(path);
      const docId = await indexDocument(first.workspace('acme'), {
        sourceId: 'docs',
        externalId: 'a.md',
        title: 'Persisted',
        body: 'The albatross survives a restart.',
      });
      await first.close();
      await first.close();

      const second = new SqliteKnowledgeStore(path);
      try {
        const reopened = second.workspace('acme');
        expect((await reopened.getDocument(docId))?.title).toBe('Persisted');
        expect((await reopened.search(['albatross'], ALL, 10)).map((h) => h.docId)).toEqual([docId]);
        expect(await second.workspace('other').search(['albatross'], ALL, 10)).toEqual([]);
        await reopened.deleteDocuments('docs', [docId]);
        expect(await reopened.search(['albatross'], ALL, 10)).toEqual([]);
      } finally {
        await second.close();
      }
    } finally {
      await removeTempDir(dir);
    }
  });
});

describe('SqliteKnowledgeStore: schema migration', () => {
  it('knowledge:heading-migration — a file made before chunks.heading gets the column, keeps its rows and indexes headings', async () => {
    const dir = await makeTempDir('agw-knowledge-');
    try {
      const path = join(dir, 'old.db');
      // The chunks table as earlier versions created it (no heading column), with one row in it.
      const old = new DatabaseSync(path);
      old.exec(`CREATE TABLE chunks (
        id INTEGER PRIMARY KEY, workspace_id TEXT NOT NULL, doc_id TEXT NOT NULL, chunk_no INTEGER NOT NULL,
        text TEXT NOT NULL, char_start INTEGER NOT NULL, char_end INTEGER NOT NULL,
        UNIQUE (workspace_id, doc_id, chunk_no));
        INSERT INTO chunks (workspace_id, doc_id, chunk_no, text, char_start, char_end) VALUES ('acme', 'd0', 0, 'old row', 0, 7);`);
      old.close();
      const columns = () => {
        const db = new DatabaseSync(path);
        try {
          return (
            db.prepare('SELECT name FROM pragma_table_info(?)').all('chunks') as { name: string }[]
          ).map((c) => c.name);
        } finally {
          db.close();
        }
      };
      expect(columns()).not.toContain('heading');
      for (let open = 0; open < 2; open += 1) {
        // Opened twice: the migration runs once and is a no-op after.
        const migrated = new SqliteKnowledgeStore(path);
        await migrated.close();
      }
      expect(columns()).toContain('heading');
      const store2 = new SqliteKnowledgeStore(path);
      try {
        const acme = store2.workspace('acme');
        expect((await acme.getChunks('d0', 0, 1)).map((c) => c.text)).toEqual(['old row']);
        await acme.upsertDocument(
          {
            docId: 'd1',
            sourceId: 'docs',
            sourceType: 'files',
            externalId: 'd1.md',
            title: 'Guide',
            url: undefined,
            updatedAt: undefined,
            contentHash: contentHash('d1'),
            bodyChars: 20,
          },
          [
            {
              chunkNo: 0,
              text: 'Five failures open it.',
              charStart: 0,
              charEnd: 22,
              heading: 'Guide › Breakers',
            },
          ],
        );
        const hits = await acme.search(['breakers'], ALL, 10);
        expect(hits.map((h) => [h.docId, h.title, h.heading])).toEqual([['d1', 'Guide', 'Guide › Breakers']]);
      } finally {
        await store2.close();
      }
    } finally {
      await removeTempDir(dir);
    }
  });
});

describe('SqliteKnowledgeStore: workspace isolation', () => {
  it('keeps the same doc id in two workspaces apart', async () => {
    const docId = 'd_sharedsharedsharedshar';
    const put = (w: WorkspaceStore, text: string) =>
      w.upsertDocument(
        {
          docId,
          sourceId: 'docs',
          sourceType: 'files',
          externalId: 'a',
          title: 'T',
          url: undefined,
          updatedAt: undefined,
          contentHash: text,
          bodyChars: text.length,
        },
        [{ chunkNo: 0, text, charStart: 0, charEnd: text.length }],
      );
    const other = store.workspace('beta');
    await put(ws, 'acme walrus');
    await put(other, 'beta narwhal');
    expect((await ws.getChunks(docId, 0, 10)).map((c) => c.text)).toEqual(['acme walrus']);
    expect((await other.getChunks(docId, 0, 10)).map((c) => c.text)).toEqual(['beta narwhal']);
    expect(await ws.search(['narwhal'], ALL, 10)).toEqual([]);
    expect(await other.search(['walrus'], ALL, 10)).toEqual([]);
    await other.deleteDocuments('docs', [docId]);
    expect((await ws.search(['walrus'], ALL, 10)).map((h) => h.docId)).toEqual([docId]);
    expect(await other.getDocument(docId)).toBeUndefined();
  });

  const SHARED = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot'];
  const MARKERS = ['quasar', 'nebula', 'pulsar', 'magnetar'];
  const doc = fc.record({
    source: fc.constantFrom('docs', 'wiki'),
    words: fc.array(fc.constantFrom(...SHARED), { minLength: 1, maxLength: 12 }),
    marked: fc.boolean(),
  });
  const corpus = fc
    .uniqueArray(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 10 }), { minLength: 2, maxLength: 4 })
    .chain((names) =>
      fc.tuple(
        fc.constant(names),
        fc.array(fc.array(doc, { minLength: 1, maxLength: 5 }), {
          minLength: names.length,
          maxLength: names.length,
        }),
      ),
    );
  const queries = fc.array(
    fc.uniqueArray(fc.constantFrom(...SHARED, ...MARKERS), { minLength: 1, maxLength: 4 }),
    {
      minLength: 1,
      maxLength: 6,
    },
  );

  it('never returns or shows another workspace’s documents', async () => {
    await fc.assert(
      fc.asyncProperty(corpus, queries, async ([names, docsPerWorkspace], qs) => {
        const shared = new SqliteKnowledgeStore(':memory:');
        try {
          const owned = new Map<string, Map<string, { source: string; marked: boolean; text: string }>>();
          for (const [i, name] of names.entries()) {
            const mine = new Map<string, { source: string; marked: boolean; text: string }>();
            for (const [j, d] of docsPerWorkspace[i]!.entries()) {
              const text = [...d.words, ...(d.marked ? [MARKERS[i]!] : [])].join(' ');
              // The same external ids in every workspace: only the workspace tells the docs apart.
              const id = await indexDocument(shared.workspace(name), {
                sourceId: d.source,
                externalId: `item-${j}`,
                title: `Item ${j}`,
                body: text,
              });
              mine.set(id, { source: d.source, marked: d.marked, text });
            }
            owned.set(name, mine);
          }
          for (const [i, name] of names.entries()) {
            const w = shared.workspace(name);
            const mine = owned.get(name)!;
            for (const q of qs) {
              for (const hit of await w.search(q, { allowedSourceIds: ['docs', 'wiki'] }, 100)) {
                expect(mine.has(hit.docId)).toBe(true);
                expect(q.some((term) => hit.text.split(' ').includes(term))).toBe(true);
              }
            }
            // Its own marker finds exactly its marked documents; the others' markers find nothing.
            const marked = [...mine].filter(([, d]) => d.marked).map(([id]) => id);
            const found = await w.search([MARKERS[i]!], { allowedSourceIds: ['docs', 'wiki'] }, 100);
            expect(found.map((h) => h.docId).sort()).toEqual(marked.sort());
            const foreignMarkers = MARKERS.filter((_, k) => k !== i);
            expect(await w.search(foreignMarkers, { allowedSourceIds: ['docs', 'wiki'] }, 100)).toEqual([]);
            for (const source of ['docs', 'wiki']) {
              const own = [...mine].filter(([, d]) => d.source === source).map(([id]) => id);
              expect(await w.countDocuments(source)).toBe(own.length);
              expect([...(await w.documentHashes(source)).keys()].sort()).toEqual(own.sort());
            }
            for (const [otherName, theirs] of owned) {
              if (otherName === name) continue;
              for (const id of theirs.keys()) {
                expect(await w.getDocument(id)).toBeUndefined();
                expect(await w.getChunks(id, 0, 100)).toEqual([]);
              }
            }
          }
        } finally {
          await shared.close();
        }
      }),
      { numRuns: 30 },
    );
  });
});

describe('SqliteKnowledgeStore: vectors shared by two processes', () => {
  it('knowledge:sqlite-vector-cache — a search never answers from vectors another connection has since changed', async () => {
    const dir = await makeTempDir('agw-knowledge-');
    const space = { model: 'hashing-v1', dimensions: 64 };
    // Two stores on one file stand for the CLI and the server sharing the embedded index.
    const path = join(dir, 'knowledge.db');
    const reader = new SqliteKnowledgeStore(path);
    const writer = new SqliteKnowledgeStore(path);
    try {
      const embed = async (w: WorkspaceStore) => {
        const missing = await w.chunksWithoutVector('docs', space, 100);
        await w.putVectors(
          space,
          missing.map((c) => ({ ...c, vector: hashingVector(c.text, 64) })),
        );
      };
      const spec = { sourceId: 'docs', externalId: 'a.md', title: 'A', body: 'The albatross flies far.' };
      const first = await indexDocument(writer.workspace('acme'), spec);
      await embed(writer.workspace('acme'));
      const query = hashingVector('albatross', 64);
      const near = () => reader.workspace('acme').vectorSearch(ALL, query, space, 10);
      expect((await near()).map((h) => h.docId)).toEqual([first]);
      const second = await indexDocument(writer.workspace('acme'), { ...spec, externalId: 'b.md' });
      await embed(writer.workspace('acme'));
      expect((await near()).map((h) => h.docId).sort()).toEqual([first, second].sort());
      await writer.workspace('acme').deleteDocuments('docs', [first]);
      expect((await near()).map((h) => h.docId)).toEqual([second]);
      // A changed document loses its vectors at once.
      await indexDocument(writer.workspace('acme'), { ...spec, externalId: 'b.md', body: 'Changed.' });
      expect(await near()).toEqual([]);
      // Another space is another matrix; switching back rebuilds, never mixes.
      expect(await reader.workspace('acme').vectorSearch(ALL, query, { ...space, model: 'x' }, 10)).toEqual(
        [],
      );
    } finally {
      await reader.close();
      await writer.close();
      await removeTempDir(dir);
    }
  });
});
