// Knowledge benchmarks (issue 4): retrieval quality on the public manpages-dev known-item set
// (MRR@10, Recall@1/@10) for the gateway's ranking against plain FTS5 BM25 in the same run, and
// search latency (p50/p95/p99), ingestion throughput and index size at 10k and 100k chunks.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, existsSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import {
  type KnowledgeStore,
  chunkText,
  contentHash,
  documentId,
  SqliteKnowledgeStore,
} from '../../gateway/knowledge/index.js';
import { ftsTable } from '../../gateway/knowledge/sqlite-store.js';
import { docRank, gatewayRanks, timeSearches } from './knowledge-bench-support.js';
import { corpusAvailable, loadManPages, type ManPage } from './manpages-corpus.js';

export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

function fileSize(path: string): number {
  return [path, `${path}-wal`].filter((p) => existsSync(p)).reduce((n, p) => n + statSync(p).size, 0);
}

export async function ingest(
  store: KnowledgeStore,
  docs: readonly { id: string; title: string; body: string }[],
): Promise<number> {
  const ws = store.workspace('bench');
  const started = performance.now();
  for (const doc of docs) {
    await ws.upsertDocument(
      {
        docId: documentId('bench', 'src', doc.id),
        sourceId: 'src',
        sourceType: 'files',
        externalId: doc.id,
        title: doc.title,
        url: doc.id,
        updatedAt: undefined,
        contentHash: contentHash(doc.body),
        bodyChars: doc.body.length,
      },
      chunkText(doc.body),
    );
  }
  return (docs.length / (performance.now() - started)) * 1000;
}

interface Quality {
  mrr: number;
  r1: number;
  r10: number;
}

export function score(ranks: readonly (number | undefined)[]): Quality {
  const n = ranks.length;
  return {
    mrr: ranks.reduce<number>((sum, r) => sum + (r !== undefined && r <= 10 ? 1 / r : 0), 0) / n,
    r1: ranks.filter((r) => r === 1).length / n,
    r10: ranks.filter((r) => r !== undefined && r <= 10).length / n,
  };
}

async function qualityBench(): Promise<void> {
  if (!corpusAvailable()) {
    if (process.getuid?.() === 0) {
      console.log('installing manpages-dev (Debian package) for the retrieval benchmark…');
      execFileSync('apt-get', ['install', '-y', '-q', 'manpages-dev'], { stdio: 'ignore' });
    }
    if (!corpusAvailable()) {
      console.log(
        'retrieval quality: skipped — install the Debian package manpages-dev (sections 2 and 3) to run it',
      );
      return;
    }
  }
  const pages: ManPage[] = loadManPages();
  const dir = mkdtempSync(join(tmpdir(), 'agw-retrieval-'));
  const path = join(dir, 'man.sqlite');
  const store = new SqliteKnowledgeStore(path);
  const docsPerSecond = await ingest(
    store,
    pages.map((p) => ({ id: p.id, title: p.id, body: p.body })),
  );
  // The gateway's own search path (BM25 candidates + coverage/proximity re-rank), ranked to 60 chunks.
  const ours = await gatewayRanks(store, pages);
  // Baseline: plain FTS5 BM25 as in the research — every query word OR-ed, body column only.
  const db = new DatabaseSync(path, { readOnly: true });
  const table = ftsTable('bench');
  const statement = db.prepare(
    `SELECT c.doc_id FROM ${table} f JOIN chunks c ON c.id = f.rowid WHERE ${table} MATCH ? ORDER BY bm25(${table}, 0.0, 1.0) LIMIT 60`,
  );
  const baseline: (number | undefined)[] = [];
  for (const page of pages) {
    const words = [...new Set(page.query.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [])];
    const rows =
      words.length === 0
        ? []
        : (statement.all(words.map((w) => `"${w}"`).join(' OR ')) as { doc_id: string }[]);
    baseline.push(
      docRank(
        rows.map((r) => r.doc_id),
        documentId('bench', 'src', page.id),
      ),
    );
  }
  db.close();
  await store.close();
  const a = score(ours);
  const b = score(baseline);
  console.log(
    `retrieval quality, manpages-dev 6.03 sections 2+3: ${pages.length} known-item queries (NAME description → page), index ${(fileSize(path) / 1e6).toFixed(1)} MB, ingestion ${docsPerSecond.toFixed(0)} docs/s`,
  );
  console.log(
    `  gateway search (stop words out, title 4x, BM25 OR + coverage/proximity re-rank): MRR@10 ${a.mrr.toFixed(3)}  R@1 ${a.r1.toFixed(3)}  R@10 ${a.r10.toFixed(3)}`,
  );
  console.log(
    `  baseline plain FTS5 BM25 OR (all words, body only):           MRR@10 ${b.mrr.toFixed(3)}  R@1 ${b.r1.toFixed(3)}  R@10 ${b.r10.toFixed(3)}`,
  );
  console.log(
    `  ratio gateway/baseline: MRR@10 ${(a.mrr / b.mrr).toFixed(2)}x  R@10 ${(a.r10 / b.r10).toFixed(2)}x`,
  );
  rmSync(dir, { recursive: true, force: true });
}

/** A deterministic synthetic corpus: Zipf-distributed pseudo-words, ~480-character chunks. */
export function syntheticCorpus(
  chunks: number,
  seed: number,
): { docs: { id: string; title: string; body: string }[]; queries: string[] } {
  let state = seed;
  const random = () => (state = (state * 1664525 + 1013904223) % 4294967296) / 4294967296;
  const syllables = [
    'ka',
    'lo',
    'mi',
    'ter',
    'sun',
    'vex',
    'dra',
    'pol',
    'qui',
    'ren',
    'tas',
    'bo',
    'nel',
    'fir',
    'gan',
    'hu',
  ];
  const vocabulary = Array.from({ length: 20_000 }, (_, i) => {
    let word = '';
    for (let n = i + 1; n > 0; n = Math.floor(n / 16)) word += syllables[n % 16];
    return word;
  });
  const harmonic = vocabulary.reduce((sum, _w, i) => sum + 1 / (i + 1), 0);
  const cumulative: number[] = [];
  vocabulary.reduce((sum, _w, i) => {
    cumulative.push(sum + 1 / (i + 1) / harmonic);
    return sum + 1 / (i + 1) / harmonic;
  }, 0);
  const pick = () => {
    const r = random();
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cumulative[mid] as number) < r) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const docs: { id: string; title: string; body: string }[] = [];
  const queries: string[] = [];
  for (let i = 0; i < chunks; i += 1) {
    const words: number[] = [];
    let length = 0;
    while (length < 480) {
      const w = pick();
      words.push(w);
      length += (vocabulary[w] as string).length + 1;
    }
    docs.push({ id: `doc-${i}`, title: `Document ${i}`, body: words.map((w) => vocabulary[w]).join(' ') });
    if (queries.length < 1100 && i % Math.max(1, Math.floor(chunks / 1100)) === 0) {
      const content = words.filter((w) => w >= 100);
      if (content.length >= 3)
        queries.push([content[0], content[1], content[2]].map((w) => vocabulary[w as number]).join(' '));
    }
  }
  return { docs, queries };
}

async function latencyBench(chunks: number): Promise<void> {
  const { docs, queries } = syntheticCorpus(chunks, 7);
  const dir = mkdtempSync(join(tmpdir(), 'agw-latency-'));
  const path = join(dir, 'synthetic.sqlite');
  const store = new SqliteKnowledgeStore(path);
  const docsPerSecond = await ingest(store, docs);
  const timings = await timeSearches(store, queries);
  console.log(
    `search latency, ${chunks.toLocaleString('en')} chunks (synthetic Zipf corpus, 3-word OR queries, top 10 with snippets, ${timings.length} timed after 100 warm-up): p50 ${percentile(timings, 50).toFixed(2)} ms  p95 ${percentile(timings, 95).toFixed(2)} ms  p99 ${percentile(timings, 99).toFixed(2)} ms; ingestion ${docsPerSecond.toFixed(0)} docs/s; index ${(fileSize(path) / 1e6).toFixed(1)} MB`,
  );
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}

export async function retrievalBench(): Promise<void> {
  console.log('\n== Knowledge benchmark (embedded SQLite FTS5 store) ==');
  console.log(
    `conditions: Node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), node:sqlite in-process, temp file on local disk; PostgreSQL numbers follow in their own section`,
  );
  await qualityBench();
  for (const chunks of [10_000, 100_000]) await latencyBench(chunks);
}
