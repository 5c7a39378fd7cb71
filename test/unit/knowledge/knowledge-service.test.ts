// KnowledgeService over a real SQLite store: flat search records with provenance, answers whose
// citations come from the cited chunks, and get_document pages behind opaque cursors — always in
// the principal's workspace and limited to the sources its key may see (spec §1, §2.2, §4.2, §5.2).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Principal } from '../../../gateway/auth/index.js';
import type { GatewayConfig } from '../../../gateway/config/index.js';
import {
  DocumentNotFound,
  InvalidCursor,
  KnowledgeService,
  PAGE_MAX_CHARS,
  PAGE_MAX_CHUNKS,
  SqliteKnowledgeStore,
  chunkText,
  decodeCursor,
  encodeCursor,
  parseChunkId,
  AnswererFailed,
  type Answerer,
  type DocumentPage,
  type SearchRequest,
} from '../../../gateway/knowledge/index.js';
import { indexDocument, indexInDocs, knowledgeConfig, principalOf } from './knowledge-fixtures.js';

const LONG = Array.from(
  { length: 200 },
  (_, i) =>
    `Paragraph ${i} explains how the zephyr turbine rotor ${i} is balanced and inspected before flight.`,
).join('\n\n');

function request(query: string, overrides: Partial<SearchRequest> = {}): SearchRequest {
  return { query, limit: 10, connectorId: undefined, sourceType: undefined, snippetChars: 120, ...overrides };
}

let store: SqliteKnowledgeStore;
let service: KnowledgeService;
let config: GatewayConfig;
let reader: Principal;
let docsOnly: Principal;
let nothing: Principal;
let outsider: Principal;

beforeEach(() => {
  store = new SqliteKnowledgeStore(':memory:');
  service = new KnowledgeService(store);
  config = knowledgeConfig([
    { name: 'acme', dataSources: ['docs', 'wiki'], keys: [['*'], ['docs'], ['other-*']] },
    { name: 'beta', dataSources: ['docs'], keys: [['*']] },
  ]);
  reader = principalOf(config, 'acme', 0);
  docsOnly = principalOf(config, 'acme', 1);
  nothing = principalOf(config, 'acme', 2);
  outsider = principalOf(config, 'beta', 0);
});

afterEach(async () => {
  await store.close();
});

async function seed() {
  const acme = store.workspace('acme');
  const revoke = await indexInDocs(acme, {
    externalId: 'revoke.md',
    title: 'Revoking keys',
    body: 'To revoke an API key run the revoke command. Revocation takes effect without a restart of the gateway.',
    url: 'revoke.md',
  });
  const wiki = await indexDocument(acme, {
    sourceId: 'wiki',
    sourceType: 'wiki',
    externalId: 'page-1',
    title: 'Key rotation',
    body: 'Rotate every API key each quarter and revoke the old key once clients have moved over.',
  });
  const manual = await indexInDocs(acme, { externalId: 'manual.txt', title: 'Manual', body: LONG });
  const secret = await indexDocument(store.workspace('beta'), {
    sourceId: 'docs',
    externalId: 'secret.md',
    title: 'Beta only',
    body: 'The flamingo protocol is private to the beta workspace and mentions revoke too.',
  });
  return { revoke, wiki, manual, secret };
}

describe('KnowledgeService.search', () => {
  it('returns flat ranked records with provenance and bounded snippets', async () => {
    const { revoke, wiki, manual } = await seed();
    const { terms, records } = await service.search(reader, request('How do I revoke a key?'));
    expect(terms).toEqual(['revoke', 'key']);
    expect(records.map((r) => r.doc_id).sort()).toEqual([revoke, wiki].sort());
    expect(records.map((r) => r.rank)).toEqual([1, 2]);
    expect(records[0]!.score).toBeGreaterThanOrEqual(records[1]!.score);
    const first = records.find((r) => r.doc_id === revoke)!;
    expect(first).toEqual({
      rank: expect.any(Number) as number,
      doc_id: revoke,
      chunk_id: `${revoke}#c0`,
      score: expect.any(Number) as number,
      title: 'Revoking keys',
      snippet: expect.any(String) as string,
      connector_id: 'docs',
      source_type: 'files',
      url: 'revoke.md',
      updated_at: null,
      more_chunks: 0,
      other_chunk_ids: null,
    });
    for (const record of records) {
      expect(Object.values(record).every((v) => v === null || typeof v !== 'object')).toBe(true);
      expect(parseChunkId(record.chunk_id)?.docId).toBe(record.doc_id);
      expect(record.snippet.length).toBeLessThanOrEqual(120);
    }
    expect(records.some((r) => r.doc_id === manual)).toBe(false);
  });

  it('keeps every snippet within snippetChars and inside its chunk', async () => {
    await seed();
    for (const snippetChars of [40, 77, 200, 1000]) {
      const { records, texts } = await service.search(reader, request('zephyr turbine', { snippetChars }));
      expect(records.length).toBeGreaterThan(0);
      for (const [i, record] of records.entries()) {
        expect(record.snippet.length).toBeLessThanOrEqual(snippetChars);
        expect(texts[i]!.replace(/\s+/g, ' ')).toContain(record.snippet.replace(/^…|…$/g, ''));
      }
    }
  });

  it('narrows by connector id and source type', async () => {
    const { revoke, wiki } = await seed();
    const ids = async (overrides: Partial<SearchRequest>) =>
      (await service.search(reader, request('revoke', overrides))).records.map((r) => r.doc_id);
    expect(await ids({ connectorId: 'wiki' })).toEqual([wiki]);
    expect(await ids({ sourceType: 'files' })).toEqual([revoke]);
    expect(await ids({ connectorId: 'docs', sourceType: 'wiki' })).toEqual([]);
    expect(await ids({ limit: 1 })).toHaveLength(1);
  });

  it('searches only the sources the key may see', async () => {
    const { revoke, wiki } = await seed();
    const seen = (await service.search(docsOnly, request('revoke'))).records.map((r) => r.doc_id);
    expect(seen).toEqual([revoke]);
    expect(seen).not.toContain(wiki);
    expect((await service.search(docsOnly, request('revoke', { connectorId: 'wiki' }))).records).toEqual([]);
    expect((await service.search(nothing, request('revoke'))).records).toEqual([]);
    expect(service.hasSources(reader)).toBe(true);
    expect(service.hasSources(nothing)).toBe(false);
  });

  it('searches only the principal’s workspace', async () => {
    const { secret } = await seed();
    const acme = await service.search(reader, request('flamingo protocol private beta'));
    expect(acme.records).toEqual([]);
    const beta = await service.search(outsider, request('revoke flamingo'));
    expect(beta.records.map((r) => r.doc_id)).toEqual([secret]);
  });
});

describe('KnowledgeService.query', () => {
  it('cites chunks whose text holds each answer sentence', async () => {
    await seed();
    const result = await service.query(reader, request('how to revoke an api key'));
    expect(result.answerer).toBe('extractive');
    expect(result.citations.length).toBeGreaterThan(0);
    for (const citation of result.citations) {
      expect(result.answer).toContain(`${citation.text} [${citation.n}]`);
      const { docId, chunkNo } = parseChunkId(citation.chunk_id)!;
      const page = await service.getDocument(reader, docId, undefined);
      const chunk = page.chunks.find((c) => c.n === chunkNo);
      expect(chunk).toBeDefined();
      expect(chunk!.text.replace(/\s+/g, ' ')).toContain(citation.text);
      expect(result.sources.map((s) => s.chunk_id)).toContain(citation.chunk_id);
    }
    expect(result.citations.map((c) => c.n)).toEqual(result.citations.map((_, i) => i + 1));
  });

  it('says so when nothing supports an answer, keeping the shape', async () => {
    await seed();
    const result = await service.query(reader, request('xylophone quokka'));
    expect(result).toEqual({
      query: 'xylophone quokka',
      answerer: 'extractive',
      model: null,
      fallback_reason: null,
      answer: 'No supporting records were found in this workspace for that question.',
      citations: [],
      sources: [],
    });
    const hidden = await service.query(nothing, request('revoke key'));
    expect(hidden.citations).toEqual([]);
    expect(hidden.sources).toEqual([]);
  });
});

describe('KnowledgeService.query with a chat answerer', () => {
  const answererConfig = {
    type: 'openai-compatible' as const,
    baseUrl: 'http://127.0.0.1:9/v1',
    model: 'twin',
    timeoutMs: 1000,
    maxTokens: 100,
    temperature: 0,
    maxContextChars: 12_000,
  };
  function withAnswerer(answer: Answerer['answer']) {
    const calls: number[] = [];
    const twin = new KnowledgeService(store, {
      answerer: () => ({
        model: 'twin',
        answer: (question, passages) => {
          calls.push(passages.length);
          return answer(question, passages);
        },
      }),
    });
    return { twin, calls };
  }

  it('returns the cited answer, its citations mapped to the cited source records', async () => {
    await seed();
    const { twin } = withAnswerer(() =>
      Promise.resolve({ answer: 'Run the revoke command [2].', cited: [2] }),
    );
    const result = await twin.query(reader, request('revoke key'), answererConfig);
    expect(result).toMatchObject({ answerer: 'openai-compatible', model: 'twin', fallback_reason: null });
    expect(result.citations).toEqual([
      {
        n: 2,
        chunk_id: result.sources[1]?.chunk_id,
        doc_id: result.sources[1]?.doc_id,
        text: result.sources[1]?.snippet,
      },
    ]);
  });

  it('falls back to the extractive answer with the reason, or `unreachable` for an unexpected error', async () => {
    await seed();
    const failed = withAnswerer(() => Promise.reject(new AnswererFailed('timeout')));
    expect(await failed.twin.query(reader, request('revoke key'), answererConfig)).toMatchObject({
      answerer: 'extractive',
      fallback_reason: 'timeout',
    });
    const crashed = withAnswerer(() => Promise.reject(new TypeError('boom')));
    const result = await crashed.twin.query(reader, request('revoke key'), answererConfig);
    expect(result).toMatchObject({ answerer: 'extractive', fallback_reason: 'unreachable' });
    expect(result.citations.length).toBeGreaterThan(0);
  });

  it('does not call the model without an answerer config or without records', async () => {
    await seed();
    const { twin, calls } = withAnswerer(() => Promise.resolve({ answer: 'x [1]', cited: [1] }));
    expect((await twin.query(reader, request('revoke key'))).answerer).toBe('extractive');
    expect((await twin.query(reader, request('xylophone quokka'), answererConfig)).answerer).toBe(
      'extractive',
    );
    expect((await twin.query(nothing, request('revoke key'), answererConfig)).sources).toEqual([]);
    expect(calls).toEqual([]);
  });
});

describe('KnowledgeService.getDocument', () => {
  async function allPages(principal: Principal, docId: string): Promise<DocumentPage[]> {
    const pages: DocumentPage[] = [];
    let cursor: string | undefined;
    do {
      const page = await service.getDocument(principal, docId, cursor);
      pages.push(page);
      cursor = page.next_cursor;
    } while (cursor !== undefined && pages.length < 100);
    return pages;
  }

  it('pages a long document without gaps or overlap', async () => {
    const { manual } = await seed();
    const expected = chunkText(LONG);
    expect(expected.length).toBeGreaterThan(PAGE_MAX_CHUNKS);
    const pages = await allPages(reader, manual);
    expect(pages.length).toBeGreaterThan(1);
    expect(pages[0]!.next_cursor).toBeDefined();
    expect(pages.at(-1)!.next_cursor).toBeUndefined();
    for (const page of pages) {
      expect(page).toMatchObject({
        doc_id: manual,
        title: 'Manual',
        connector_id: 'docs',
        source_type: 'files',
        url: null,
        updated_at: null,
        total_chunks: expected.length,
      });
      expect(page.chunks.length).toBeGreaterThan(0);
      expect(page.chunks.length).toBeLessThanOrEqual(PAGE_MAX_CHUNKS);
      const chars = page.chunks.reduce((sum, c) => sum + c.text.length, 0);
      expect(chars <= PAGE_MAX_CHARS || page.chunks.length === 1).toBe(true);
    }
    const chunks = pages.flatMap((p) => p.chunks);
    expect(chunks.map((c) => c.n)).toEqual(expected.map((c) => c.chunkNo));
    expect(chunks.map((c) => [c.text, c.char_start, c.char_end])).toEqual(
      expected.map((c) => [c.text, c.charStart, c.charEnd]),
    );
    expect(chunks.map((c) => c.chunk_id)).toEqual(expected.map((c) => `${manual}#c${c.chunkNo}`));
  });

  it('returns a short document in one page without a cursor', async () => {
    const { revoke } = await seed();
    const page = await service.getDocument(reader, revoke, undefined);
    expect(page.next_cursor).toBeUndefined();
    expect(page.total_chunks).toBe(1);
    expect(page.chunks).toHaveLength(1);
    expect('next_cursor' in page).toBe(false);
  });

  it('rejects invalid cursors', async () => {
    const { manual, revoke } = await seed();
    const first = await service.getDocument(reader, manual, undefined);
    const cursor = first.next_cursor!;
    const decoded = decodeCursor(cursor)!;
    const invalid = [
      'garbage',
      '',
      cursor.slice(0, -3),
      encodeCursor({ ...decoded, version: 'something-else' }),
      // A valid cursor of one document is not a cursor of another.
      encodeCursor({ ...decoded, docId: revoke }),
    ];
    for (const value of invalid)
      await expect(service.getDocument(reader, manual, value), value).rejects.toBeInstanceOf(InvalidCursor);
    await expect(service.getDocument(reader, revoke, cursor)).rejects.toBeInstanceOf(InvalidCursor);
  });

  it('rejects a cursor issued before the document changed', async () => {
    const { manual } = await seed();
    const cursor = (await service.getDocument(reader, manual, undefined)).next_cursor!;
    await indexDocument(store.workspace('acme'), {
      sourceId: 'docs',
      externalId: 'manual.txt',
      title: 'Manual',
      body: `${LONG}\n\nOne more paragraph.`,
    });
    await expect(service.getDocument(reader, manual, cursor)).rejects.toBeInstanceOf(InvalidCursor);
    // Starting again without a cursor works.
    expect((await service.getDocument(reader, manual, undefined)).chunks[0]!.n).toBe(0);
  });

  it('treats unknown, hidden and foreign documents as not found', async () => {
    const { wiki, secret, revoke } = await seed();
    await expect(service.getDocument(reader, 'd_unknownunknownunknown0', undefined)).rejects.toBeInstanceOf(
      DocumentNotFound,
    );
    await expect(service.getDocument(docsOnly, wiki, undefined)).rejects.toBeInstanceOf(DocumentNotFound);
    await expect(service.getDocument(nothing, revoke, undefined)).rejects.toBeInstanceOf(DocumentNotFound);
    await expect(service.getDocument(reader, secret, undefined)).rejects.toBeInstanceOf(DocumentNotFound);
    await expect(service.getDocument(outsider, revoke, undefined)).rejects.toBeInstanceOf(DocumentNotFound);
    // A cursor does not open a document the key cannot see.
    const { manual } = await seed();
    const cursor = (await service.getDocument(reader, manual, undefined)).next_cursor!;
    await expect(service.getDocument(nothing, manual, cursor)).rejects.toBeInstanceOf(DocumentNotFound);
    await expect(service.getDocument(outsider, manual, cursor)).rejects.toBeInstanceOf(DocumentNotFound);
  });
});
