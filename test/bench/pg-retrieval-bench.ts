// The knowledge benchmark on the PostgreSQL store (issue 4: "on both stores"): the same
// manpages-dev known-item set and synthetic latency corpora as retrieval-bench.ts, against a
// throwaway local PostgreSQL server reached over its Unix socket as the unprivileged role.
import pg from 'pg';
import { cpus } from 'node:os';
import { documentId } from '../../gateway/knowledge/index.js';
import { migratePostgres, PgKnowledgeStore } from '../../gateway/knowledge/pg-store.js';
import { startPostgres, type PostgresServer } from '../infra/postgres-server.js';
import { corpusAvailable, loadManPages } from './manpages-corpus.js';
import { docRank, gatewayRanks, timeSearches } from './knowledge-bench-support.js';
import { ingest, percentile, score, syntheticCorpus } from './retrieval-bench.js';

async function reset(server: PostgresServer): Promise<void> {
  const admin = new pg.Client(server.admin);
  await admin.connect();
  await admin.query('TRUNCATE documents, chunks, chunk_vectors CASCADE');
  await admin.end();
}

async function sizeMb(server: PostgresServer): Promise<number> {
  const admin = new pg.Client(server.admin);
  await admin.connect();
  const { rows } = await admin.query<{ bytes: string }>(
    "SELECT pg_total_relation_size('chunks') + pg_total_relation_size('documents') AS bytes",
  );
  await admin.end();
  return Number(rows[0]?.bytes ?? 0) / 1e6;
}

async function quality(server: PostgresServer): Promise<void> {
  if (!corpusAvailable()) {
    console.log('postgres retrieval quality: skipped — install the Debian package manpages-dev');
    return;
  }
  await reset(server);
  const pages = loadManPages();
  const store = new PgKnowledgeStore(server.app);
  const rate = await ingest(
    store,
    pages.map((p) => ({ id: p.id, title: p.id, body: p.body })),
  );
  const ours = await gatewayRanks(store, pages);
  // Baseline: the research's plain PostgreSQL ranking — every word OR-ed, ts_rank(tsv, q, 1), no re-rank.
  const client = await store.pool.connect();
  const baseline: (number | undefined)[] = [];
  await client.query('BEGIN');
  await client.query("SELECT set_config('agw.workspace', 'bench', true)");
  for (const page of pages) {
    const words = [...new Set(page.query.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [])];
    const { rows } = await client.query<{ doc_id: string }>(
      "SELECT doc_id FROM chunks, websearch_to_tsquery('english', $1) q WHERE tsv @@ q ORDER BY ts_rank(tsv, q, 1) DESC LIMIT 60",
      [words.join(' or ')],
    );
    baseline.push(
      docRank(
        rows.map((r) => r.doc_id),
        documentId('bench', 'src', page.id),
      ),
    );
  }
  await client.query('COMMIT');
  client.release();
  await store.close();
  const a = score(ours);
  const b = score(baseline);
  console.log(
    `postgres retrieval quality, manpages-dev (${pages.length} queries), ingestion ${rate.toFixed(0)} docs/s, index ${(await sizeMb(server)).toFixed(1)} MB`,
  );
  console.log(
    `  gateway search (BM25-like ts_rank(…,1) OR, title weight A + coverage/proximity re-rank): MRR@10 ${a.mrr.toFixed(3)}  R@1 ${a.r1.toFixed(3)}  R@10 ${a.r10.toFixed(3)}`,
  );
  console.log(
    `  baseline plain ts_rank(tsv, q, 1) OR (all words):                                      MRR@10 ${b.mrr.toFixed(3)}  R@1 ${b.r1.toFixed(3)}  R@10 ${b.r10.toFixed(3)}`,
  );
  console.log(`  ratio gateway/baseline: MRR@10 ${(a.mrr / b.mrr).toFixed(2)}x`);
}

async function vacuumAnalyze(server: PostgresServer): Promise<void> {
  const admin = new pg.Client(server.admin);
  await admin.connect();
  await admin.query('VACUUM ANALYZE documents, chunks');
  await admin.end();
}

async function latency(server: PostgresServer, chunks: number): Promise<void> {
  await reset(server);
  const { docs, queries } = syntheticCorpus(chunks, 7);
  const store = new PgKnowledgeStore(server.app);
  const rate = await ingest(store, docs);
  const fresh = await timeSearches(store, queries);
  // What autovacuum does on its own in time: merge the GIN pending list and gather statistics.
  await vacuumAnalyze(server);
  const settled = await timeSearches(store, queries);
  await store.close();
  const line = (timings: number[]) =>
    `p50 ${percentile(timings, 50).toFixed(2)} ms  p95 ${percentile(timings, 95).toFixed(2)} ms  p99 ${percentile(timings, 99).toFixed(2)} ms`;
  console.log(
    `postgres search latency, ${chunks.toLocaleString('en')} chunks (${settled.length} timed after 100 warm-up): right after ingestion ${line(fresh)}; after VACUUM ANALYZE ${line(settled)}; ingestion ${rate.toFixed(0)} docs/s (one transaction per document); index ${(await sizeMb(server)).toFixed(1)} MB`,
  );
}

export async function pgRetrievalBench(): Promise<void> {
  let server: PostgresServer;
  try {
    server = startPostgres();
  } catch (error) {
    console.log(`\npostgres knowledge benchmark: skipped — ${(error as Error).message}`);
    return;
  }
  try {
    await migratePostgres(server.admin, server.app.user);
    console.log('\n== Knowledge benchmark (PostgreSQL store) ==');
    console.log(
      `conditions: Node ${process.version}, ${cpus().length} CPUs, throwaway PostgreSQL (Debian package, default settings, fsync off) on a Unix socket, pg pool of 8, same corpora and queries as the SQLite section`,
    );
    await quality(server);
    for (const chunks of [10_000, 100_000]) await latency(server, chunks);
  } finally {
    server.stop();
  }
}
