// The knowledge layer end to end on the embedded store (spec §2.1, §2.2, §4.1, §4.2 rule 6, §8):
// real files indexed by the files connector, /agent/search and /agent/query over REST, and the
// gateway's own `search` and `get_document` MCP tools — always scoped to the key's workspace.
import { mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decode } from '@toon-format/toon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyRecord, newKeys } from '../support/gateway-document.js';
import { mcpPost, startHarness, type Harness } from '../support/gateway-harness.js';
import { getDocumentPage } from '../support/mcp-clients.js';
import { writeTree } from '../support/file-tree.js';
import { refreshAndWait } from '../support/refresh-source.js';

const [reader, writer, otherWorkspace, noDocs] = newKeys(4);
let h: Harness;
let dir: string;

const LONG = Array.from(
  { length: 200 },
  (_, i) =>
    `Paragraph ${i} explains how the zephyr turbine rotor ${i} is balanced and inspected before flight.`,
).join('\n\n');

async function files(): Promise<void> {
  await writeTree(dir, {
    'alpha/revocation.md':
      '# Revoking keys\n\nTo revoke an API key run the revoke command. Revocation takes effect without a restart of the gateway.\n',
    'alpha/breakers.html':
      '<html><head><title>Circuit breakers</title><script>var secret = 1;</script></head><body><p>A circuit breaker opens when an upstream source keeps failing, and answers at once while open.</p></body></html>',
    'alpha/nested/ticket.json': JSON.stringify({
      title: 'Ticket 42',
      status: 'open',
      body: 'The quarterly invoice export fails for large customers.',
    }),
    'alpha/manual.txt': LONG,
    'alpha/ignored.bin': 'not indexed: flamingo',
    'beta/secret.md':
      '# Beta only\n\nThe flamingo protocol is private to the beta workspace and mentions revoke too.\n',
  });
}

async function waitForSync(key: string, source: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const body = (await (
      await fetch(`${h.url}/agent/sources?response_format=json`, {
        headers: { authorization: `Bearer ${key}` },
      })
    ).json()) as {
      sources: { id: string; status: string }[];
    };
    if (body.sources.find((s) => s.id === source)?.status === 'ready') return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`source ${source} never became ready`);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agw-knowledge-'));
  await files();
  h = await startHarness({
    knowledge: { sqlitePath: join(dir, 'index.sqlite'), usageHints: true },
    workspaces: [
      {
        name: 'alpha',
        dataSources: [
          { name: 'handbook', type: 'files', path: join(dir, 'alpha') },
          { name: 'missing', type: 'files', path: join(dir, 'does-not-exist') },
        ],
        keys: [
          keyRecord(reader),
          keyRecord(writer, { access: 'write' }),
          keyRecord(noDocs, { sources: ['nothing-*'] }),
        ],
      },
      {
        name: 'beta',
        dataSources: [{ name: 'handbook', type: 'files', path: join(dir, 'beta') }],
        keys: [keyRecord(otherWorkspace)],
      },
    ],
  });
  await waitForSync(reader.key, 'handbook');
  await waitForSync(otherWorkspace.key, 'handbook');
});
afterAll(async () => {
  await h.stop();
  await rm(dir, { recursive: true, force: true });
});

function post(path: string, key: string, body: unknown): Promise<Response> {
  return fetch(`${h.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

interface Result {
  rank: number;
  doc_id: string;
  chunk_id: string;
  score: number;
  title: string;
  snippet: string;
  connector_id: string;
  source_type: string;
  url: string | null;
  updated_at: string | null;
}

describe('POST /agent/search', () => {
  it('knowledge:search — ranked snippets with provenance, TOON by default', async () => {
    const response = await post('/agent/search', reader.key, {
      query: 'how do I revoke an API key',
      limit: 5,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/toon; charset=utf-8');
    const body = decode(await response.text()) as unknown as { count: number; results: Result[] };
    expect(body.results[0]).toMatchObject({
      rank: 1,
      title: 'Revoking keys',
      connector_id: 'handbook',
      source_type: 'files',
      url: 'revocation.md',
    });
    expect(body.results[0]?.chunk_id.startsWith(`${body.results[0]?.doc_id}#c`)).toBe(true);
    expect(body.results.every((r) => typeof r.updated_at === 'string' && r.score > 0)).toBe(true);
    expect(body.results.some((r) => r.url === 'ignored.bin')).toBe(false);
  });

  it('knowledge:snippet-bounded — snippets never exceed snippet_chars and whole documents are never returned', async () => {
    const body = (await (
      await post('/agent/search', reader.key, {
        query: 'zephyr turbine rotor inspected',
        limit: 20,
        // One per chunk: the long manual's many chunks are the snippets to check.
        options: { snippet_chars: 80, response_format: 'json', group_by: 'chunk' },
      })
    ).json()) as { results: Result[] };
    expect(body.results.length).toBeGreaterThan(1);
    for (const result of body.results) expect([...result.snippet].length).toBeLessThanOrEqual(80);
    expect(body.results.every((r) => r.snippet.length < LONG.length)).toBe(true);
  });

  it('knowledge:html-json — HTML text without scripts and JSON records are searchable', async () => {
    const html = (await (
      await post('/agent/search', reader.key, {
        query: 'circuit breaker upstream failing',
        options: { response_format: 'json' },
      })
    ).json()) as { results: Result[] };
    expect(html.results[0]?.title).toBe('Circuit breakers');
    expect(JSON.stringify(html.results)).not.toContain('var secret');
    const json = (await (
      await post('/agent/search', reader.key, {
        query: 'quarterly invoice export',
        options: { response_format: 'json' },
      })
    ).json()) as { results: Result[] };
    expect(json.results[0]).toMatchObject({ title: 'Ticket 42', url: 'nested/ticket.json' });
  });

  it('knowledge:filters — connector_id and source_type narrow the search', async () => {
    const none = (await (
      await post('/agent/search', reader.key, {
        query: 'revoke',
        connector_id: 'missing',
        options: { response_format: 'json' },
      })
    ).json()) as { results: Result[] };
    expect(none.results).toEqual([]);
    const files = (await (
      await post('/agent/search', reader.key, {
        query: 'revoke',
        source_type: 'files',
        options: { response_format: 'json' },
      })
    ).json()) as { results: Result[] };
    expect(files.results.length).toBeGreaterThan(0);
  });

  it('knowledge:usage-header — results and estimated tokens of the body', async () => {
    const response = await post('/agent/search', reader.key, { query: 'revoke', limit: 2 });
    expect(response.headers.get('x-service-usage')).toMatch(
      /^results=\d+; est_tokens=\d+; tokenizer=o200k_base$/,
    );
  });

  it.each([
    ['missing query', {}, 'query'],
    ['blank query', { query: '   ' }, 'query'],
    ['2,001-character query', { query: 'x'.repeat(2001) }, 'query'],
    ['limit 0', { query: 'ok', limit: 0 }, 'limit'],
    ['limit 101', { query: 'ok', limit: 101 }, 'limit'],
    ['fractional limit', { query: 'ok', limit: 2.5 }, 'limit'],
    ['snippet_chars 10', { query: 'ok', options: { snippet_chars: 10 } }, 'options.snippet_chars'],
    ['response_format xml', { query: 'ok', options: { response_format: 'xml' } }, 'options.response_format'],
    ['group_by page', { query: 'ok', options: { group_by: 'page' } }, 'options.group_by'],
    ['unknown source_type', { query: 'ok', source_type: 'ftp' }, 'source_type'],
    ['a workspace field', { query: 'ok', workspace: 'beta' }, '(root)'],
  ])('knowledge:validation — %s is a 400 naming the field', async (_label, body, path) => {
    const response = await post('/agent/search', reader.key, body);
    expect(response.status).toBe(400);
    const error = (await response.json()) as { error: { code: string; details: { path: string }[] } };
    expect(error.error.code).toBe('invalid_request');
    expect(error.error.details.map((d) => d.path)).toContain(path);
  });

  it('knowledge:limits — a query of exactly 2,000 characters is accepted', async () => {
    expect((await post('/agent/search', reader.key, { query: `revoke ${'y'.repeat(1993)}` })).status).toBe(
      200,
    );
  });
});

interface Grouped extends Result {
  more_chunks?: number;
  other_chunk_ids?: string | null;
}

describe('documents, not fragments', () => {
  const QUERY = 'zephyr turbine rotor inspected before flight';

  it('knowledge:collapse-documents — the long manual takes one row of one TOON table; group_by chunk gives it many', async () => {
    const response = await post('/agent/search', reader.key, { query: QUERY, limit: 20 });
    const text = await response.text();
    // Uniform primitive columns: the results are one tabular block, the collapse columns last.
    expect(text).toMatch(/^results\[\d+\]\{rank,doc_id,chunk_id,.*,more_chunks,other_chunk_ids\}:$/m);
    const grouped = (decode(text) as unknown as { results: Grouped[] }).results;
    expect(new Set(grouped.map((r) => r.doc_id)).size).toBe(grouped.length);
    const manual = grouped.find((r) => r.url === 'manual.txt')!;
    expect(manual.more_chunks).toBeGreaterThan(3);
    const others = manual.other_chunk_ids!.split(';');
    expect(others).toHaveLength(3);

    const chunks = (await (
      await post('/agent/search', reader.key, {
        query: QUERY,
        limit: 20,
        options: { group_by: 'chunk', response_format: 'json' },
      })
    ).json()) as { results: Grouped[] };
    const manualChunks = chunks.results.filter((r) => r.doc_id === manual.doc_id);
    expect(manualChunks.length).toBeGreaterThan(5);
    expect(chunks.results.every((r) => !('more_chunks' in r))).toBe(true);
    // The best chunk is the document's row; its next best are the ids it names.
    expect(manualChunks[0]?.chunk_id).toBe(manual.chunk_id);
    expect(manualChunks.slice(1, 4).map((r) => r.chunk_id)).toEqual(others);

    // The named chunks are reachable through get_document's pages.
    const seen = new Set<string>();
    let cursor: string | undefined;
    do {
      const page = await getDocumentPage(h.url, reader.key, manual.doc_id, cursor);
      for (const chunk of page.chunks) seen.add(chunk.chunk_id);
      cursor = page.next_cursor;
    } while (cursor !== undefined);
    for (const id of others) expect(seen.has(id)).toBe(true);

    // …or at once: get_document starts a page at a named chunk and pages on from there.
    const jump = async (args: Record<string, unknown>) =>
      (await (
        await mcpPost(h.url, reader.key, {
          method: 'tools/call',
          params: { name: 'get_document', arguments: { doc_id: manual.doc_id, ...args } },
        })
      ).json()) as {
        result?: { structuredContent: { chunks: { chunk_id: string; n: number }[]; next_cursor?: string } };
        error?: { message: string };
      };
    const from = await jump({ chunk_id: others[2] });
    expect(from.result?.structuredContent.chunks[0]?.chunk_id).toBe(others[2]);
    const n = from.result!.structuredContent.chunks.at(-1)!.n;
    if (from.result?.structuredContent.next_cursor !== undefined) {
      const next = await jump({ cursor: from.result.structuredContent.next_cursor });
      expect(next.result?.structuredContent.chunks[0]?.n).toBe(n + 1);
    }
    // A well-formed chunk id of another document, and one that is not a chunk id at all.
    expect((await jump({ chunk_id: `d_${'A'.repeat(22)}#c0` })).error?.message).toMatch(
      /chunk_id must be a chunk id of doc_id/,
    );
    expect((await jump({ chunk_id: 'c3' })).error?.message).toMatch(/chunk_id must be a chunk id of doc_id/);
    const both = await jump({ chunk_id: others[0], cursor: 'x' });
    expect(both.error?.message).toMatch(/chunk_id and cursor cannot be used together/);
  });

  it('knowledge:collapse-documents — the MCP search tool takes group_by; query sources are documents', async () => {
    const call = async (args: Record<string, unknown>) =>
      (
        (await (
          await mcpPost(h.url, reader.key, {
            method: 'tools/call',
            params: { name: 'search', arguments: { query: QUERY, limit: 5, ...args } },
          })
        ).json()) as { result: { structuredContent: { results: Grouped[] } } }
      ).result.structuredContent.results;
    const byDocument = await call({});
    expect(new Set(byDocument.map((r) => r.doc_id)).size).toBe(byDocument.length);
    expect(byDocument.every((r) => typeof r.more_chunks === 'number')).toBe(true);
    const byChunk = await call({ group_by: 'chunk' });
    expect(byChunk).toHaveLength(5);
    expect(new Set(byChunk.map((r) => r.doc_id)).size).toBeLessThan(5);
    const bad = await mcpPost(h.url, reader.key, {
      method: 'tools/call',
      params: { name: 'search', arguments: { query: QUERY, group_by: 'page' } },
    });
    expect(JSON.stringify(await bad.json())).toMatch(/group_by must be one of: document, chunk/);

    const answer = (await (
      await post('/agent/query', reader.key, { query: QUERY, options: { response_format: 'json' } })
    ).json()) as { citations: { chunk_id: string; doc_id: string }[]; sources: Grouped[] };
    expect(answer.sources.length).toBeGreaterThan(0);
    expect(new Set(answer.sources.map((s) => s.doc_id)).size).toBe(answer.sources.length);
    expect(answer.citations.length).toBeGreaterThan(0);
    // A citation quotes a chunk of a listed document (not necessarily the document's best chunk).
    for (const citation of answer.citations) {
      expect(answer.sources.map((s) => s.doc_id)).toContain(citation.doc_id);
      expect(citation.chunk_id.startsWith(`${citation.doc_id}#c`)).toBe(true);
    }
  });
});

describe('workspace isolation', () => {
  it('knowledge:isolation — another workspace never sees these documents, and vice versa', async () => {
    const beta = (await (
      await post('/agent/search', otherWorkspace.key, {
        query: 'revoke circuit breaker invoice zephyr',
        limit: 100,
        options: { response_format: 'json' },
      })
    ).json()) as { results: Result[] };
    expect(beta.results.length).toBeGreaterThan(0);
    expect(beta.results.every((r) => r.title === 'Beta only')).toBe(true);
    const alpha = (await (
      await post('/agent/search', reader.key, {
        query: 'flamingo protocol beta',
        limit: 100,
        options: { response_format: 'json' },
      })
    ).json()) as { results: Result[] };
    expect(alpha.results.some((r) => r.title === 'Beta only')).toBe(false);
    const hidden = await mcpPost(h.url, otherWorkspace.key, {
      method: 'tools/call',
      params: { name: 'get_document', arguments: { doc_id: (await firstDoc('revoke')).doc_id } },
    });
    expect(((await hidden.json()) as { error: { code: number } }).error.code).toBe(-32602);
  });

  it('knowledge:key-sources — a key whose source patterns exclude a data source finds nothing in it', async () => {
    const body = (await (
      await post('/agent/search', noDocs.key, { query: 'revoke', options: { response_format: 'json' } })
    ).json()) as { results: Result[] };
    expect(body.results).toEqual([]);
  });
});

async function firstDoc(query: string): Promise<Result> {
  const body = (await (
    await post('/agent/search', reader.key, { query, options: { response_format: 'json' } })
  ).json()) as { results: Result[] };
  return body.results[0]!;
}

describe('POST /agent/query', () => {
  it('knowledge:query-provenance — every answer sentence is verbatim from a cited record', async () => {
    const body = (await (
      await post('/agent/query', reader.key, {
        query: 'what does a circuit breaker do when an upstream keeps failing',
        options: { response_format: 'json' },
      })
    ).json()) as {
      answer: string;
      answerer: string;
      citations: { n: number; chunk_id: string; doc_id: string; text: string }[];
      sources: Result[];
    };
    expect(body.answerer).toBe('extractive');
    expect(body.citations.length).toBeGreaterThan(0);
    for (const citation of body.citations) {
      expect(body.answer).toContain(`${citation.text} [${citation.n}]`);
      // The quoted chunk is a chunk of a listed source document, and holds the sentence verbatim.
      const source = body.sources.find((s) => s.doc_id === citation.doc_id);
      expect(source).toBeDefined();
      expect(citation.chunk_id.startsWith(`${source!.doc_id}#c`)).toBe(true);
      const quoted = (await (
        await mcpPost(h.url, reader.key, {
          method: 'tools/call',
          params: {
            name: 'get_document',
            arguments: { doc_id: source!.doc_id, chunk_id: citation.chunk_id },
          },
        })
      ).json()) as { result: { structuredContent: { chunks: { chunk_id: string; text: string }[] } } };
      const chunk = quoted.result.structuredContent.chunks.find((c) => c.chunk_id === citation.chunk_id);
      expect(chunk?.text.replace(/\s+/g, ' ')).toContain(citation.text);
    }
  });

  it('knowledge:query-long-questions — long natural questions, and a passage quoted back, get a cited answer', async () => {
    const questions = [
      'Could you tell me what I need to do to revoke a key for somebody?',
      'Hello, I am new here and I wanted to ask you what exactly happens with the gateway when an upstream source keeps failing all the time?',
      'Did anyone mention whether the quarterly invoice export still fails for our really large customers or not?',
      'Paragraph 7 explains how the zephyr turbine rotor 7 is balanced and inspected before flight.',
    ];
    for (const query of questions) {
      const body = (await (
        await post('/agent/query', reader.key, { query, options: { response_format: 'json' } })
      ).json()) as { answer: string; sources: unknown[]; citations: unknown[] };
      expect(body.sources.length, query).toBeGreaterThan(0);
      expect(body.citations.length, query).toBeGreaterThan(0);
      expect(body.answer, query).not.toContain('No supporting records');
    }
  });

  it('knowledge:query-nothing — no sources means an explicit no-answer, still with the (empty) source list', async () => {
    const body = (await (
      await post('/agent/query', reader.key, {
        query: 'xylophone quasar',
        options: { response_format: 'json' },
      })
    ).json()) as { answer: string; sources: unknown[]; citations: unknown[] };
    expect(body.sources).toEqual([]);
    expect(body.citations).toEqual([]);
    expect(body.answer).toContain('No supporting records');
  });
});

describe('MCP tools of the gateway', () => {
  it('knowledge:mcp-tools — search and get_document are listed and page a long document with a cursor', async () => {
    const list = (await (await mcpPost(h.url, reader.key, { method: 'tools/list' })).json()) as {
      result: { tools: { name: string }[] };
    };
    expect(list.result.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['search', 'get_document']));
    const search = (await (
      await mcpPost(h.url, reader.key, {
        method: 'tools/call',
        params: { name: 'search', arguments: { query: 'zephyr rotor', limit: 1 } },
      })
    ).json()) as {
      result: { content: { type: string; text: string }[]; structuredContent: { results: Result[] } };
    };
    expect(search.result.content[0]?.type).toBe('text');
    const docId = search.result.structuredContent.results[0]!.doc_id;
    const seen: number[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 20; page += 1) {
      const args: Record<string, unknown> = { doc_id: docId, ...(cursor === undefined ? {} : { cursor }) };
      const response = (await (
        await mcpPost(h.url, reader.key, {
          id: page + 2,
          method: 'tools/call',
          params: { name: 'get_document', arguments: args },
        })
      ).json()) as {
        result: {
          structuredContent: {
            total_chunks: number;
            chunks: { n: number; text: string }[];
            next_cursor?: string;
          };
        };
      };
      const content = response.result.structuredContent;
      expect(content.chunks.reduce((n, c) => n + c.text.length, 0)).toBeLessThanOrEqual(8000 + 1500);
      seen.push(...content.chunks.map((c) => c.n));
      cursor = content.next_cursor;
      if (cursor === undefined) {
        expect(seen).toEqual(Array.from({ length: content.total_chunks }, (_, i) => i));
        break;
      }
    }
    expect(cursor).toBeUndefined();
    expect(seen.length).toBeGreaterThan(8);
    const bad = (await (
      await mcpPost(h.url, reader.key, {
        method: 'tools/call',
        params: { name: 'get_document', arguments: { doc_id: docId, cursor: 'garbage' } },
      })
    ).json()) as { error: { code: number } };
    expect(bad.error.code).toBe(-32602);
  });
});

describe('sync', () => {
  it('knowledge:sync-incremental — changes, deletions and additions arrive on demand; unchanged ids stay', async () => {
    const before = await firstDoc('quarterly invoice export');
    await writeFile(
      join(dir, 'alpha', 'revocation.md'),
      '# Revoking keys\n\nRevoked keys are refused within a second by every gateway replica.\n',
    );
    await unlink(join(dir, 'alpha', 'breakers.html'));
    await writeFile(join(dir, 'alpha', 'new.md'), '# Quokka notes\n\nThe quokka checklist is new.\n');
    const refreshed = await refreshAndWait(h.url, writer.key, 'handbook');
    expect(refreshed.source).toMatchObject({ status: 'ready', documents: 4 });
    expect((await firstDoc('quokka checklist')).title).toBe('Quokka notes');
    expect((await firstDoc('replica refused second')).title).toBe('Revoking keys');
    const breaker = (await (
      await post('/agent/search', reader.key, {
        query: 'circuit breaker',
        options: { response_format: 'json' },
      })
    ).json()) as { results: Result[] };
    expect(breaker.results.some((r) => r.title === 'Circuit breakers')).toBe(false);
    expect((await firstDoc('quarterly invoice export')).doc_id).toBe(before.doc_id);
  });

  it('knowledge:failing-connector — a broken source is reported and does not block search', async () => {
    const body = (await (
      await fetch(`${h.url}/agent/sources?response_format=json`, {
        headers: { authorization: `Bearer ${reader.key}` },
      })
    ).json()) as {
      sources: { id: string; status: string; error_code: string | null; documents: number }[];
    };
    expect(body.sources.find((s) => s.id === 'missing')).toMatchObject({
      status: 'unavailable',
      error_code: 'sync_failed',
      documents: 0,
    });
    expect((await post('/agent/search', reader.key, { query: 'revoke' })).status).toBe(200);
  });
});
