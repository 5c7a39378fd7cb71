// Indexing you can watch (issue 39 goal 4), with the real all-MiniLM-L6-v2 behind the test server and
// a files source of id-named files: /agent/sources shows the embedding pass as chunks done of the
// total with a rate and time left; a refresh answers 202 at once and is followed to its end there;
// an id-like file name is not a title (empty title, path as url) while a meaningful one still is.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../gateway/cli/cli-main.js';
import { capturingIo } from '../support/capturing-io.js';
import { startEmbeddings, type RunningEmbeddings } from '../infra/embeddings-server.js';
import { keyRecord, newKey } from '../support/gateway-document.js';
import { startHarness, type Harness } from '../support/gateway-harness.js';
import { refreshAndWait, type SourceRow } from '../support/refresh-source.js';

const writer = newKey();
const FILES = 300;
const DAY = 86_400_000;
let h: Harness;
let model: RunningEmbeddings;
let dir: string;
/** Every /agent/sources row of the source seen while the first sync and its pass ran. */
const samples: SourceRow[] = [];

const TOPICS = ['invoices', 'rotors', 'payroll', 'kestrels', 'turbines', 'harbours'];
const body = (i: number) =>
  `Note ${i} explains how the ${TOPICS[i % TOPICS.length]} team files report number ${i} each week.`;

async function row(): Promise<SourceRow | undefined> {
  const response = await fetch(`${h.url}/agent/sources?response_format=json`, {
    headers: { authorization: `Bearer ${writer.key}` },
  });
  return ((await response.json()) as { sources: SourceRow[] }).sources.find((s) => s['id'] === 'notes');
}

beforeAll(async () => {
  model = await startEmbeddings();
  dir = await mkdtemp(join(tmpdir(), 'agw-progress-'));
  for (let i = 0; i < FILES; i += 1)
    await writeFile(join(dir, `d${String(i).padStart(6, '0')}.txt`), body(i));
  await writeFile(join(dir, 'circuit-breakers.txt'), 'A breaker opens when an upstream keeps failing.');
  h = await startHarness({
    knowledge: {
      sqlitePath: ':memory:',
      embeddings: {
        baseUrl: `${model.url}/v1`,
        model: model.model,
        batchSize: 16,
        maxRetries: 0,
        timeoutMs: 120_000,
        queryTimeoutMs: 30_000,
      },
    },
    workspaces: [
      {
        name: 'acme',
        dataSources: [{ name: 'notes', type: 'files', path: dir, syncIntervalMs: DAY }],
        keys: [keyRecord(writer, { access: 'write' })],
      },
    ],
  });
  const deadline = Date.now() + 240_000;
  for (;;) {
    const seen = await row();
    if (seen !== undefined) samples.push(seen);
    if (seen?.['embedding_status'] === 'ready' || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}, 300_000);

afterAll(async () => {
  await h?.stop();
  await model?.stop();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe('indexing progress', () => {
  it('knowledge:progress-embedding-pass — chunks done of the total, a rate and time left while the pass runs', () => {
    const last = samples.at(-1)!;
    expect(last).toMatchObject({
      status: 'ready',
      embedding_status: 'ready',
      progress_phase: null,
      documents_done: FILES + 1,
      documents_total: FILES + 1,
      chunks_done: FILES + 1,
      chunks_total: FILES + 1,
      rate_per_s: null,
      eta_s: null,
      embedding_progress: `${FILES + 1}/${FILES + 1}`,
      last_added: FILES + 1,
    });
    const during = samples.filter((s) => s['progress_phase'] === 'embedding');
    expect(during.length).toBeGreaterThan(0);
    for (const sample of during) {
      expect(sample['status']).toBe('syncing');
      expect(sample['chunks_total']).toBe(FILES + 1);
      expect(sample['chunks_done'] as number).toBeLessThanOrEqual(FILES + 1);
      expect(sample['embedding_progress']).toBe(`${String(sample['chunks_done'])}/${FILES + 1}`);
    }
    // The files connector counts its files before reading them: a sync sample knows the total.
    for (const sample of samples.filter((s) => s['progress_phase'] === 'sync'))
      expect(sample['documents_total']).toBe(FILES + 1);
    // Past its first second the pass has a pace, and with a known total a time left.
    const paced = during.filter((s) => s['rate_per_s'] !== null);
    expect(paced.length).toBeGreaterThan(0);
    for (const sample of paced) {
      expect(sample['rate_per_s'] as number).toBeGreaterThan(0);
      expect(sample['eta_s'] as number).toBeGreaterThanOrEqual(0);
    }
  });

  it('knowledge:refresh-202 — a refresh is accepted at once and followed on /agent/sources to its end', async () => {
    for (let i = FILES; i < FILES + 5; i += 1)
      await writeFile(join(dir, `d${String(i).padStart(6, '0')}.txt`), body(i));
    const started = performance.now();
    const { accepted, source } = await refreshAndWait(h.url, writer.key, 'notes');
    expect(accepted.sync).toBe('started');
    expect(accepted.source).toMatchObject({ id: 'notes', status: 'syncing' });
    expect(source).toMatchObject({
      status: 'ready',
      documents: FILES + 6,
      last_added: 5,
      last_unchanged: FILES + 1,
      last_removed: 0,
      embedding_status: 'ready',
      chunks_done: FILES + 6,
      chunks_total: FILES + 6,
    });
    expect(performance.now() - started).toBeLessThan(60_000);
  });

  it('knowledge:id-like-file-name-no-title — d000042.txt has no title; circuit-breakers.txt keeps its name', async () => {
    const search = async (query: string) => {
      const response = await fetch(`${h.url}/agent/search`, {
        method: 'POST',
        headers: { authorization: `Bearer ${writer.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query, limit: 3, options: { response_format: 'json', mode: 'lexical' } }),
      });
      return ((await response.json()) as { results: { title: string; url: string }[] }).results;
    };
    const [note] = await search('report number 42 each week');
    expect(note).toMatchObject({ title: '', url: 'd000042.txt' });
    const [breaker] = await search('breaker opens upstream failing');
    expect(breaker).toMatchObject({ title: 'circuit-breakers.txt', url: 'circuit-breakers.txt' });
  });

  it('knowledge:refresh-202 — the CLI asks a refresh and follows it to its end (agent-gateway sources --refresh --wait)', async () => {
    await writeFile(join(dir, 'd999999.txt'), body(999_999));
    const { io, out, err } = capturingIo({ AGW_API_KEY: writer.key });
    expect(await runCli(['sources', '--url', h.url, '--refresh', 'notes', '--wait'], io)).toBe(0);
    expect(err).toEqual([]);
    expect(out[0]).toMatch(/^notes: refresh (started|queued)$/);
    const total = FILES + 7;
    expect(out.at(-1)).toBe(`notes (files): ready · documents ${total}/${total} · chunks ${total}/${total}`);
    out.length = 0;
    expect(await runCli(['sources', '--url', h.url], io)).toBe(0);
    expect(out).toEqual([`notes (files): ready · documents ${total}/${total} · chunks ${total}/${total}`]);
    // The key comes from the environment only.
    expect(await runCli(['sources', '--url', h.url], { ...io, env: {} })).toBe(2);
    expect(err.at(-1)).toContain('AGW_API_KEY');
  });
});
