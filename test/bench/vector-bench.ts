// Vector search cost in both knowledge stores (issue 22): exact brute force against the IVF index
// over 10k and 100k chunk vectors of 384 dimensions in one workspace. Per store and size: p50/p95/p99
// of vectorSearch, the first search (load, plus the inline index build), recall@10 of the index
// against exact, memory; then the index build alone, inline and in background slices. Vectors are
// clustered like sentence embeddings (test/fixtures/clustered-vectors.ts); the query embedding call
// is not part of any number. For PostgreSQL also the pgvector path (HNSW in the database) over the
// same rows, graded against the exact in-memory answers. `npm run bench -- vectors`.
import pg from 'pg';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import {
  SqliteKnowledgeStore,
  DEFAULT_VECTOR_INDEX,
  type ChunkInput,
  type EmbeddingSpace,
  type KnowledgeStore,
  type VectorHit,
  type VectorIndexOptions,
} from '../../gateway/knowledge/index.js';
import { migratePostgres, PgKnowledgeStore } from '../../gateway/knowledge/pg-store.js';
import { indexMatrix } from '../../gateway/knowledge/indexed-matrix.js';
import { runInSlices, runNow } from '../../gateway/knowledge/sliced-work.js';
import { unitVector, vectorBytes } from '../../gateway/knowledge/vector-math.js';
import { VectorMatrix } from '../../gateway/knowledge/vector-matrix.js';
import { clusteredVectors } from '../fixtures/clustered-vectors.js';
import { startPostgres, type PostgresServer } from '../infra/postgres-server.js';
import { percentile } from './retrieval-bench.js';

const SPACE: EmbeddingSpace = { model: 'bench-clustered', dimensions: 384 };
const CHUNKS_PER_DOC = 100;
const FILTERS = { allowedSourceIds: ['src'] };
const EXACT: VectorIndexOptions = { approximateAbove: Infinity, build: 'inline' };
const APPROXIMATE: VectorIndexOptions = { ...DEFAULT_VECTOR_INDEX, build: 'inline' };
const CORPUS_SEED = 11;

function corpus(): () => Float32Array {
  return clusteredVectors(SPACE.dimensions, CORPUS_SEED).draws(1);
}

function queries(count: number): Float32Array[] {
  const next = clusteredVectors(SPACE.dimensions, CORPUS_SEED).draws(2);
  return Array.from({ length: count }, next);
}

/** Documents of 100 short chunks each, then their vectors in batches of 1,000; vectors/s returned. */
async function fill(store: KnowledgeStore, chunks: number): Promise<number> {
  const ws = store.workspace('bench');
  const next = corpus();
  const docs = Math.ceil(chunks / CHUNKS_PER_DOC);
  for (let d = 0; d < docs; d += 1) {
    const body: ChunkInput[] = Array.from({ length: CHUNKS_PER_DOC }, (_, i) => ({
      chunkNo: i,
      text: `chunk ${i} of document ${d}`,
      charStart: i * 40,
      charEnd: i * 40 + 39,
    }));
    await ws.upsertDocument(
      {
        docId: `d_${String(d).padStart(22, '0')}`,
        sourceId: 'src',
        sourceType: 'files',
        externalId: String(d),
        title: `Document ${d}`,
        url: undefined,
        updatedAt: undefined,
        contentHash: `h${d}`,
        bodyChars: CHUNKS_PER_DOC * 40,
      },
      body,
    );
  }
  // In document order, so vector k is the corpus's k-th draw on both stores.
  const started = performance.now();
  for (let d = 0; d < docs; d += 10) {
    const batch = [];
    for (let k = d; k < Math.min(docs, d + 10); k += 1)
      for (let i = 0; i < CHUNKS_PER_DOC; i += 1)
        batch.push({
          docId: `d_${String(k).padStart(22, '0')}`,
          chunkNo: i,
          contentHash: `h${k}`,
          vector: next(),
        });
    await ws.putVectors(SPACE, batch);
  }
  return (chunks / (performance.now() - started)) * 1000;
}

interface Run {
  /** The first search: loads the vectors (and builds the index, inline). */
  readonly first: number;
  readonly timings: number[];
  readonly hits: VectorHit[][];
  /** Array-buffer bytes the first search added (the matrix, and the index's copy while built). */
  readonly bytes: number;
}

async function run(store: KnowledgeStore, qs: readonly Float32Array[], warmUp: number): Promise<Run> {
  const ws = store.workspace('bench');
  const before = process.memoryUsage().arrayBuffers;
  let started = performance.now();
  await ws.vectorSearch(FILTERS, qs[0] as Float32Array, SPACE, 10);
  const first = performance.now() - started;
  const bytes = process.memoryUsage().arrayBuffers - before;
  for (let i = 0; i < warmUp; i += 1)
    await ws.vectorSearch(FILTERS, qs[i % qs.length] as Float32Array, SPACE, 10);
  const timings: number[] = [];
  const hits: VectorHit[][] = [];
  for (const q of qs) {
    started = performance.now();
    const found = await ws.vectorSearch(FILTERS, q, SPACE, 10);
    timings.push(performance.now() - started);
    if (found.length !== 10) throw new Error(`expected 10 hits, got ${found.length}`);
    hits.push(found);
  }
  return { first, timings: timings.sort((a, b) => a - b), hits, bytes };
}

function recall(exact: readonly VectorHit[][], approximate: readonly VectorHit[][]): number {
  let found = 0;
  exact.forEach((truth, i) => {
    const keys = new Set(truth.map((h) => `${h.docId}#${h.chunkNo}`));
    found += (approximate[i] ?? []).filter((h) => keys.has(`${h.docId}#${h.chunkNo}`)).length;
  });
  return found / (exact.length * 10);
}

function line(timings: readonly number[]): string {
  return `p50 ${percentile(timings, 50).toFixed(1)} / p95 ${percentile(timings, 95).toFixed(1)} / p99 ${percentile(timings, 99).toFixed(1)} ms (${timings.length} timed)`;
}

function load(): string {
  return `load ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`;
}

/** The exact and the approximate store over the same rows, one after the other. */
async function compare(
  label: string,
  chunks: number,
  open: (options: VectorIndexOptions) => KnowledgeStore,
): Promise<Run> {
  const qs = queries(chunks > 50_000 ? 200 : 500);
  const writer = open(EXACT);
  const rate = await fill(writer, chunks);
  const exact = await run(writer, qs, 5);
  await writer.close();
  const approximateStore = open(APPROXIMATE);
  const approximate = await run(approximateStore, qs, 5);
  await approximateStore.close();
  const mb = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;
  console.log(
    `${label}, ${chunks.toLocaleString('en')} chunks × ${SPACE.dimensions} (${load()}): vectors stored ${rate.toFixed(0)}/s\n` +
      `  exact:       ${line(exact.timings)}; first search (load) ${exact.first.toFixed(0)} ms, +${mb(exact.bytes)} array buffers\n` +
      `  approximate: ${line(approximate.timings)}; first search (load + inline index build) ${approximate.first.toFixed(0)} ms, +${mb(approximate.bytes)}; recall@10 vs exact ${recall(exact.hits, approximate.hits).toFixed(3)}`,
  );
  return exact;
}

/** pgvector over the rows `compare` left: the first search fills the twins from the bytea (what
 * switching a database from memory to pgvector costs once), then the timed searches. */
async function pgvectorRun(
  server: PostgresServer,
  admin: pg.Client,
  chunks: number,
  exact: Run,
): Promise<void> {
  const store = new PgKnowledgeStore(server.app, undefined, 'pgvector');
  try {
    const qs = queries(exact.hits.length);
    const started = performance.now();
    await store.workspace('bench').vectorSearch(FILTERS, qs[0] as Float32Array, SPACE, 10);
    const fillMs = performance.now() - started;
    await admin.query('ANALYZE chunk_embeddings'); // what autovacuum does after such a fill
    const timed = await run(store, qs, 5);
    const sizes = await admin.query<{ table: string; index: string }>(
      `SELECT pg_table_size('chunk_embeddings') AS table, pg_relation_size('chunk_embeddings_hnsw_${SPACE.dimensions}') AS index`,
    );
    const plan = await admin.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN SELECT doc_id FROM chunk_embeddings e WHERE workspace_id = 'bench' AND model = $1 AND dimensions = ${SPACE.dimensions}
       AND source_id = ANY('{src}') ORDER BY embedding::vector(${SPACE.dimensions}) <=> $2::vector(${SPACE.dimensions}) LIMIT 10`,
      [SPACE.model, `[${unitVector(qs[0] as Float32Array, SPACE).join(',')}]`],
    );
    const scan = plan.rows.map((r) => r['QUERY PLAN']).find((l) => /Scan/.test(l)) ?? '?';
    const mb = (bytes: string | undefined) => `${(Number(bytes ?? 0) / 1e6).toFixed(0)} MB`;
    const p50 = (t: readonly number[]) => percentile(t, 50);
    console.log(
      `  pgvector:    ${line(timed.timings)}; ${(p50(timed.timings) / p50(exact.timings)).toFixed(2)}x the exact in-memory p50; recall@10 vs exact ${recall(exact.hits, timed.hits).toFixed(3)}\n` +
        `               first search after switching from memory (twins filled from bytea, HNSW maintained) ${(fillMs / 1000).toFixed(1)} s (${((chunks / fillMs) * 1000).toFixed(0)} vectors/s); chunk_embeddings ${mb(sizes.rows[0]?.table)} + HNSW ${mb(sizes.rows[0]?.index)}; plan: ${scan.trim()} (${load()})`,
    );
  } finally {
    await store.close();
  }
}

/** The index build alone over an in-memory matrix: inline, then in 8 ms slices with the event
 * loop's worst delay while it ran; and recall on random Gaussian vectors, the worst case. */
async function buildCost(chunks: number): Promise<void> {
  const matrixOf = (next: () => Float32Array) => {
    const rows = Array.from({ length: chunks }, (_, i) => ({
      docId: `d_${String(Math.floor(i / CHUNKS_PER_DOC)).padStart(22, '0')}`,
      chunkNo: i % CHUNKS_PER_DOC,
      sourceId: 'src',
      sourceType: 'files',
      bytes: vectorBytes(unitVector(next(), SPACE)),
    }));
    return new VectorMatrix(SPACE, 1, rows, rows.length);
  };
  const matrix = matrixOf(corpus());
  let started = performance.now();
  const built = runNow(indexMatrix(matrix));
  const inline = performance.now() - started;
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  started = performance.now();
  await runInSlices(indexMatrix(matrix), 8, () => false);
  const sliced = performance.now() - started;
  delay.disable();
  const noise = matrixOf(() => Float32Array.from({ length: SPACE.dimensions }, () => Math.random() - 0.5));
  const noiseIndex = runNow(indexMatrix(noise));
  let found = 0;
  const qs = Array.from({ length: 100 }, () =>
    unitVector(
      Float32Array.from({ length: SPACE.dimensions }, () => Math.random() - 0.5),
      SPACE,
    ),
  );
  for (const q of qs) {
    const truth = new Set(noise.search(FILTERS, q, 10).map((h) => `${h.docId}#${h.chunkNo}`));
    if (noiseIndex === undefined) break;
    found += noiseIndex.matrix
      .search(FILTERS, q, 10, { index: noiseIndex.index, above: 0 })
      .filter((h) => truth.has(`${h.docId}#${h.chunkNo}`)).length;
  }
  console.log(
    `index build, ${chunks.toLocaleString('en')} rows (${load()}): ${built?.index.lists} lists, ${built?.index.probes} probed; inline ${inline.toFixed(0)} ms; in 8 ms slices ${sliced.toFixed(0)} ms wall, event loop delay max ${(delay.max / 1e6).toFixed(1)} ms p99 ${(delay.percentile(99) / 1e6).toFixed(1)} ms; recall@10 on uniform random vectors (worst case) ${(found / (qs.length * 10)).toFixed(3)}`,
  );
}

async function pgCompare(server: PostgresServer, chunks: number): Promise<void> {
  const admin = new pg.Client(server.admin);
  await admin.connect();
  await admin.query(
    'TRUNCATE documents, chunks, chunk_vectors, vector_epochs, chunk_embeddings, vector_twins_filled',
  );
  try {
    const exact = await compare(
      'postgres vector search (bytea, in gateway memory)',
      chunks,
      (options) => new PgKnowledgeStore(server.app, options),
    );
    const { rows } = await admin.query<{ bytes: string }>(
      "SELECT pg_total_relation_size('chunk_vectors') AS bytes",
    );
    console.log(`  chunk_vectors ${(Number(rows[0]?.bytes ?? 0) / 1e6).toFixed(0)} MB`);
    await pgvectorRun(server, admin, chunks, exact);
  } finally {
    await admin.end();
  }
}

export async function vectorBench(): Promise<void> {
  console.log('\n== Vector search benchmark (exact brute force vs IVF index, both stores) ==');
  console.log(
    `conditions: Node ${process.version}, ${cpus().length} CPUs, ${load()}, one workspace, clustered 384-dimension vectors (100 topics × 50 sub-topics, shared mean direction: neighbours at cosine ~0.5, random pairs ~0.1), top 10 with the source filter, ${CHUNKS_PER_DOC} chunks per document; approximate above ${DEFAULT_VECTOR_INDEX.approximateAbove.toLocaleString('en')} rows; the query embedding is not included`,
  );
  for (const chunks of [10_000, 100_000]) {
    const dir = mkdtempSync(join(tmpdir(), 'agw-vector-bench-'));
    try {
      await compare(
        'sqlite vector search',
        chunks,
        (options) => new SqliteKnowledgeStore(join(dir, 'index.sqlite'), options),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  await postgresRuns();
  for (const chunks of [10_000, 100_000]) await buildCost(chunks);
}

async function postgresRuns(): Promise<void> {
  let server: PostgresServer;
  try {
    server = startPostgres();
  } catch (error) {
    console.log(`postgres vector search: skipped — ${(error as Error).message}`);
    return;
  }
  try {
    const pgvector = await migratePostgres(server.admin, server.app.user);
    if (pgvector !== undefined) throw new Error(`pgvector: ${pgvector} (run test/infra/ensure-pgvector.sh)`);
    for (const chunks of [10_000, 100_000]) await pgCompare(server, chunks);
  } finally {
    server.stop();
  }
}
