// Vector search cost in both knowledge stores (issue 22): brute-force cosine over 10k and 100k chunk
// vectors of 384 dimensions in one workspace, p50/p95/p99 per query, plus vector ingestion rate.
// Vectors are seeded random unit vectors, so this measures cost only, never ranking quality; the
// query embedding call is not part of it. `npm run bench -- vectors`.
import pg from 'pg';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  migratePostgres,
  PgKnowledgeStore,
  SqliteKnowledgeStore,
  type ChunkInput,
  type EmbeddingSpace,
  type KnowledgeStore,
} from '../../gateway/knowledge/index.js';
import { startPostgres, type PostgresServer } from '../infra/postgres-server.js';
import { percentile } from './retrieval-bench.js';

const SPACE: EmbeddingSpace = { model: 'bench-random', dimensions: 384 };
const CHUNKS_PER_DOC = 100;
const FILTERS = { allowedSourceIds: ['src'] };

function seeded(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 1664525 + 1013904223) % 4294967296) / 4294967296;
}

function randomVector(random: () => number): Float32Array {
  // Uniform in [-1, 1) per component; the stores normalise on write and on query.
  return Float32Array.from({ length: SPACE.dimensions }, () => random() * 2 - 1);
}

/** Documents of 100 short chunks each, then their vectors in batches of 1,000; vectors/s returned. */
async function fill(store: KnowledgeStore, chunks: number): Promise<number> {
  const ws = store.workspace('bench');
  const random = seeded(11);
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
  const started = performance.now();
  for (;;) {
    const missing = await ws.chunksWithoutVector('src', SPACE, 1000);
    if (missing.length === 0) break;
    await ws.putVectors(
      SPACE,
      missing.map((c) => ({ ...c, vector: randomVector(random) })),
    );
  }
  return (chunks / (performance.now() - started)) * 1000;
}

/** The first search after the writes (the embedded store rebuilds its matrix then), and the rest. */
async function time(
  store: KnowledgeStore,
  warmUp: number,
  timed: number,
): Promise<{ first: number; timings: number[] }> {
  const ws = store.workspace('bench');
  const random = seeded(97);
  const timings: number[] = [];
  let first = Number.NaN;
  for (let i = 0; i < warmUp + timed; i += 1) {
    const query = randomVector(random);
    const started = performance.now();
    const hits = await ws.vectorSearch(FILTERS, query, SPACE, 10);
    const elapsed = performance.now() - started;
    if (hits.length !== 10) throw new Error(`expected 10 hits, got ${hits.length}`);
    if (i === 0) first = elapsed;
    if (i >= warmUp) timings.push(elapsed);
  }
  return { first, timings: timings.sort((a, b) => a - b) };
}

function line(timings: readonly number[]): string {
  return `p50 ${percentile(timings, 50).toFixed(1)} ms  p95 ${percentile(timings, 95).toFixed(1)} ms  p99 ${percentile(timings, 99).toFixed(1)} ms (${timings.length} timed)`;
}

async function sqliteRun(chunks: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'agw-vector-bench-'));
  const store = new SqliteKnowledgeStore(join(dir, 'index.sqlite'));
  try {
    const rate = await fill(store, chunks);
    const heap = process.memoryUsage().heapUsed;
    const { first, timings } = await time(store, 10, chunks > 50_000 ? 200 : 500);
    console.log(
      `sqlite vector search, ${chunks.toLocaleString('en')} chunks × ${SPACE.dimensions}: ${line(timings)}; first search after the writes (matrix rebuilt) ${first.toFixed(0)} ms; vectors stored ${rate.toFixed(0)}/s; heap ${(heap / 1e6).toFixed(0)} MB after ingestion, ${(process.memoryUsage().heapUsed / 1e6).toFixed(0)} MB + ${(process.memoryUsage().arrayBuffers / 1e6).toFixed(0)} MB array buffers with the matrix`,
    );
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function pgRun(server: PostgresServer, chunks: number): Promise<void> {
  const admin = new pg.Client(server.admin);
  await admin.connect();
  await admin.query('TRUNCATE documents, chunks, chunk_vectors');
  const store = new PgKnowledgeStore(server.app);
  try {
    const rate = await fill(store, chunks);
    await admin.query('VACUUM ANALYZE documents, chunks, chunk_vectors');
    const { rows } = await admin.query<{ bytes: string }>(
      "SELECT pg_total_relation_size('chunk_vectors') AS bytes",
    );
    const { timings } = await time(store, 2, chunks > 50_000 ? 5 : 30);
    console.log(
      `postgres vector search (real[], dot product in SQL, no pgvector), ${chunks.toLocaleString('en')} chunks × ${SPACE.dimensions}: ${line(timings)}; vectors stored ${rate.toFixed(0)}/s; chunk_vectors ${(Number(rows[0]?.bytes ?? 0) / 1e6).toFixed(0)} MB`,
    );
  } finally {
    await store.close();
    await admin.end();
  }
}

export async function vectorBench(): Promise<void> {
  console.log('\n== Vector search benchmark (brute force, both stores) ==');
  console.log(
    `conditions: Node ${process.version}, ${cpus().length} CPUs, one workspace, seeded random unit vectors (cost only), top 10 with the source filter, ${CHUNKS_PER_DOC} chunks per document; the query embedding is not included`,
  );
  for (const chunks of [10_000, 100_000]) await sqliteRun(chunks);
  let server: PostgresServer;
  try {
    server = startPostgres();
  } catch (error) {
    console.log(`postgres vector search: skipped — ${(error as Error).message}`);
    return;
  }
  try {
    await migratePostgres(server.admin, server.app.user);
    const probe = new PgKnowledgeStore(server.app);
    console.log(
      `postgres: pgvector available: ${await probe.pgvectorAvailable()} (the real[] path runs either way)`,
    );
    await probe.close();
    for (const chunks of [10_000, 100_000]) await pgRun(server, chunks);
  } finally {
    server.stop();
  }
}
