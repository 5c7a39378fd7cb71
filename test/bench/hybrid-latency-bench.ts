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
  CANDIDATE_POOL,
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

/** Issue 39 goal 5, at 100k chunks on the embedded store, the question's embedding excluded. */
const GOALS = { hybridP95: 30, lexicalP95: 15, chunks: 100_000 };

/** HYBRID_LATENCY_SIZES=100000 and HYBRID_LATENCY_PG=off narrow a run (profiling, before/after pairs). */
const SIZES = (process.env['HYBRID_LATENCY_SIZES'] ?? '10000,100000').split(',').map(Number);
const WITH_PG = process.env['HYBRID_LATENCY_PG'] !== 'off';

interface Request {
  readonly query: string;
  readonly limit: number;
  readonly connectorId: undefined;
  readonly sourceType: undefined;
  readonly snippetChars: number;
  readonly mode: RetrievalMode;
}

/** The p95 of each mode at the goal's size on the embedded store, for the verdict line. */
const measured = new Map<RetrievalMode, number>();

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
  // One parsed config, as the gateway holds one snapshot: a fresh one per call re-validated it and
  // re-fingerprinted the embeddings settings inside every timed search (0.05-0.2 ms each time, no part of a search).
  const snapshot = config();
  const embeddings = new WorkspaceEmbeddings(
    () => snapshot,
    () => tableProvider(queries),
  );
  const service = new KnowledgeService(store, { embeddings });
  const principal = benchPrincipal();
  const request = (query: string, mode: RetrievalMode): Request => ({
    query,
    limit: 10,
    connectorId: undefined,
    sourceType: undefined,
    snippetChars: 300,
    mode,
  });
  const search = async (query: string, mode: RetrievalMode): Promise<RetrievalMode | undefined> =>
    (await service.search(principal, request(query, mode))).retrieval?.used;
  const firstStarted = performance.now();
  await search(queries[0] as string, 'hybrid');
  const first = performance.now() - firstStarted;
  const lines: string[] = [];
  for (const mode of MODES) {
    for (const query of queries.slice(0, 100)) await search(query, mode);
    const timings: number[] = [];
    for (const query of queries.slice(100, 1100)) {
      const started = performance.now();
      const used = await search(query, mode);
      timings.push(performance.now() - started);
      if (used !== mode) throw new Error(`${mode} fell back to ${used ?? '?'}`);
    }
    timings.sort((a, b) => a - b);
    if (store.kind === 'sqlite' && chunks === GOALS.chunks) measured.set(mode, percentile(timings, 95));
    lines.push(
      `    ${mode.padEnd(8)} p50 ${percentile(timings, 50).toFixed(2)} ms  p95 ${percentile(timings, 95).toFixed(2)} ms  p99 ${percentile(timings, 99).toFixed(2)} ms (${timings.length} timed)`,
    );
  }
  console.log(
    `  ${label}, ${chunks.toLocaleString('en')} chunks: vectors stored at ${vectorsPerSecond.toFixed(0)}/s; first search (vector load + index build) ${first.toFixed(0)} ms; load ${loadavg()[0]?.toFixed(1)}`,
  );
  for (const line of lines) console.log(line);
}

function printGoals(): void {
  const verdict = (mode: RetrievalMode, goal: number): string => {
    const p95 = measured.get(mode);
    if (p95 === undefined) return `${mode} p95 ≤ ${goal} ms: not measured in this run`;
    return `${mode} p95 ≤ ${goal} ms: ${p95 <= goal ? 'met' : 'not met'} (${p95.toFixed(2)} ms)`;
  };
  console.log(
    `  goals (issue 39, embedded SQLite at ${GOALS.chunks.toLocaleString('en')} chunks, question embedding excluded, load ${loadavg()[0]?.toFixed(1)} now): ${verdict('hybrid', GOALS.hybridP95)}; ${verdict('lexical', GOALS.lexicalP95)}`,
  );
}

async function truncate(server: PostgresServer): Promise<void> {
  const admin = new pg.Client(server.admin);
  await admin.connect();
  await admin.query('TRUNCATE documents, chunks, chunk_vectors, vector_epochs CASCADE');
  await admin.end();
}

export async function hybridLatencyBench(): Promise<void> {
  console.log(
    '\n== Search latency by mode (issue 22: lexical, semantic, hybrid; question embedding excluded) ==',
  );
  const pool = `KnowledgeService's fixed pool of ${CANDIDATE_POOL} candidates per list, one record per document`;
  console.log(
    `conditions: Node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), load ${loadavg()
      .map((n) => n.toFixed(1))
      .join(
        ' ',
      )} at start; synthetic Zipf corpus (~480-char chunks, one per document), 3-word queries, top 10 with 300-char snippets, ${pool}, 100 warm-up then 1,000 timed per mode; one clustered ${DIMS}-dim vector per chunk; vector index: approximate above ${DEFAULT_VECTOR_INDEX.approximateAbove} vectors, built by the first search`,
  );
  for (const chunks of SIZES) {
    const dir = mkdtempSync(join(tmpdir(), 'agw-hybrid-latency-'));
    const store = new SqliteKnowledgeStore(join(dir, 'index.sqlite'), INDEX);
    try {
      await measure('embedded SQLite', store, chunks);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  printGoals();
  if (!WITH_PG) return;
  let server: PostgresServer;
  try {
    server = startPostgres();
  } catch (error) {
    console.log(`  PostgreSQL: skipped — ${(error as Error).message}`);
    return;
  }
  try {
    await migratePostgres(server.admin, server.app.user);
    for (const chunks of SIZES) {
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
