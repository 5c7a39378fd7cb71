// Search latency per mode (issue 22): lexical, semantic and hybrid through the gateway's own
// KnowledgeService at 10k and 100k chunks, on the embedded store and on PostgreSQL, excluding the
// question's embedding (a table lookup stands in for the model here; its own cost is measured by the
// hybrid quality benchmark against the real model). Corpus: the synthetic Zipf corpus of the lexical
// benchmark, one clustered 384-dimension vector per chunk (test/fixtures/clustered-vectors.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { validateConfig, type GatewayConfig } from '../../gateway/config/index.js';
import {
  KnowledgeService,
  SqliteKnowledgeStore,
  WorkspaceEmbeddings,
  type EmbeddingProvider,
  type KnowledgeStore,
  type RetrievalMode,
} from '../../gateway/knowledge/index.js';
import { migratePostgres, PgKnowledgeStore } from '../../gateway/knowledge/pg-store.js';
import { DEFAULT_VECTOR_INDEX } from '../../gateway/knowledge/vector-cache.js';
import { clusteredVectors } from '../fixtures/clustered-vectors.js';
import { startPostgres, type PostgresServer } from '../infra/postgres-server.js';
import { benchPrincipal } from './knowledge-bench-support.js';
import { ingest, percentile, syntheticCorpus } from './retrieval-bench.js';

const DIMS = 384;
const MODEL = 'bench-clustered';
const MODES: readonly RetrievalMode[] = ['lexical', 'semantic', 'hybrid'];
/** The index built by the first search, so the timed searches use the path a warmed server uses. */
const INDEX = { ...DEFAULT_VECTOR_INDEX, build: 'inline' as const };

function config(): GatewayConfig {
  const parsed = validateConfig({
    version: 1,
    workspaces: [
      {
        name: 'bench',
        dataSources: [{ name: 'src', type: 'files', path: '.' }],
        embeddings: { baseUrl: 'http://127.0.0.1:9/v1', model: MODEL, dimensions: DIMS },
      },
    ],
  });
  if (!parsed.ok) throw new Error('bench config');
  return parsed.config;
}

/** A question's vector from a table: the same text always gets the same vector. */
function tableProvider(queries: readonly string[]): EmbeddingProvider {
  const draw = clusteredVectors(DIMS, 11).draws(2);
  const table = new Map(queries.map((q) => [q, draw()]));
  return {
    model: MODEL,
    dimensions: DIMS,
    embed: (texts) => Promise.resolve(texts.map((t) => table.get(t) ?? draw())),
  };
}

async function attachVectors(store: KnowledgeStore): Promise<number> {
  const ws = store.workspace('bench');
  const draw = clusteredVectors(DIMS, 11).draws(1);
  const space = { model: MODEL, dimensions: DIMS };
  const started = performance.now();
  let stored = 0;
  for (;;) {
    const page = await ws.chunksWithoutVector('src', space, 5_000);
    if (page.length === 0) break;
    stored += await ws.putVectors(
      space,
      page.map((c) => ({ docId: c.docId, chunkNo: c.chunkNo, contentHash: c.contentHash, vector: draw() })),
    );
  }
  return (stored / (performance.now() - started)) * 1000;
}

async function measure(label: string, store: KnowledgeStore, chunks: number): Promise<void> {
  const { docs, queries } = syntheticCorpus(chunks, 7);
  await ingest(store, docs);
  const vectorsPerSecond = await attachVectors(store);
  const embeddings = new WorkspaceEmbeddings(config, () => tableProvider(queries));
  const service = new KnowledgeService(store, { embeddings });
  const principal = benchPrincipal();
  const request = (query: string, mode: RetrievalMode) => ({
    query,
    limit: 10,
    connectorId: undefined,
    sourceType: undefined,
    snippetChars: 300,
    mode,
  });
  const firstStarted = performance.now();
  await service.search(principal, request(queries[0] as string, 'hybrid'));
  const first = performance.now() - firstStarted;
  const lines: string[] = [];
  for (const mode of MODES) {
    for (const query of queries.slice(0, 100)) await service.search(principal, request(query, mode));
    const timings: number[] = [];
    for (const query of queries.slice(100, 1100)) {
      const started = performance.now();
      const { retrieval } = await service.search(principal, request(query, mode));
      timings.push(performance.now() - started);
      if (retrieval?.used !== mode)
        throw new Error(`${mode} fell back: ${retrieval?.fallback_reason ?? '?'}`);
    }
    timings.sort((a, b) => a - b);
    lines.push(
      `    ${mode.padEnd(8)} p50 ${percentile(timings, 50).toFixed(2)} ms  p95 ${percentile(timings, 95).toFixed(2)} ms  p99 ${percentile(timings, 99).toFixed(2)} ms (${timings.length} timed)`,
    );
  }
  console.log(
    `  ${label}, ${chunks.toLocaleString('en')} chunks: vectors stored at ${vectorsPerSecond.toFixed(0)}/s; first search (vector load + index build) ${first.toFixed(0)} ms; load ${loadavg()[0]?.toFixed(1)}`,
  );
  for (const line of lines) console.log(line);
}

async function truncate(server: PostgresServer): Promise<void> {
  const admin = new pg.Client(server.admin);
  await admin.connect();
  await admin.query('TRUNCATE documents, chunks, chunk_vectors, vector_epochs');
  await admin.end();
}

export async function hybridLatencyBench(): Promise<void> {
  console.log(
    '\n== Search latency by mode (issue 22: lexical, semantic, hybrid; question embedding excluded) ==',
  );
  console.log(
    `conditions: Node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}); synthetic Zipf corpus (~480-char chunks), 3-word queries, top 10 with 300-char snippets, 100 warm-up then 1,000 timed per mode; one clustered ${DIMS}-dim vector per chunk; vector index: approximate above ${DEFAULT_VECTOR_INDEX.approximateAbove} vectors, built by the first search`,
  );
  for (const chunks of [10_000, 100_000]) {
    const dir = mkdtempSync(join(tmpdir(), 'agw-hybrid-latency-'));
    const store = new SqliteKnowledgeStore(join(dir, 'index.sqlite'), INDEX);
    try {
      await measure('embedded SQLite', store, chunks);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  let server: PostgresServer;
  try {
    server = startPostgres();
  } catch (error) {
    console.log(`  PostgreSQL: skipped — ${(error as Error).message}`);
    return;
  }
  try {
    await migratePostgres(server.admin, server.app.user);
    for (const chunks of [10_000, 100_000]) {
      await truncate(server);
      const store = new PgKnowledgeStore(server.app, INDEX);
      try {
        await measure('PostgreSQL (unprivileged role, row-level security)', store, chunks);
      } finally {
        await store.close();
      }
    }
  } finally {
    server.stop();
  }
}
