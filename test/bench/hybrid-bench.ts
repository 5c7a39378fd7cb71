// Hybrid retrieval quality (issue 22): MRR@10, nDCG@10 and R@10 of lexical, semantic and hybrid
// search (several fusion rules) on two known-item sets, manpages-dev and Debian package descriptions,
// with the real all-MiniLM-L6-v2 served by test/infra/embeddings; plus the embedding pass's
// throughput against that server and the re-sync that makes no embedding call. Every mode runs
// through the gateway's own KnowledgeService on the embedded store, in the same run.
import { execFileSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { embedSource } from '../../gateway/knowledge/embed-source.js';
import {
  documentId,
  KnowledgeService,
  SqliteKnowledgeStore,
  WorkspaceEmbeddings,
  type EmbeddingProvider,
} from '../../gateway/knowledge/index.js';
import { CONVEX_SWEEP, embeddingsBenchConfig, RRF_60, SEMANTIC, type Variant } from './retrieval-variants.js';
import { startBenchEmbeddings } from './bench-embeddings.js';
import { loadDebianDescriptions, installDescriptions } from './debian-descriptions-corpus.js';
import { DiskEmbeddingCache } from './disk-embedding-cache.js';
import { benchPrincipal, docRank } from './knowledge-bench-support.js';
import { corpusAvailable, loadManPages } from './manpages-corpus.js';
import { ingest } from './retrieval-bench.js';

interface KnownItemSet {
  readonly name: string;
  readonly docs: readonly { id: string; title: string; body: string }[];
  readonly queries: readonly { text: string; relevant: string }[];
}

const VARIANTS: readonly Variant[] = [
  { label: 'lexical (BM25 + re-rank)', mode: 'lexical' },
  SEMANTIC,
  RRF_60,
  ...CONVEX_SWEEP,
];

function quality(ranks: readonly (number | undefined)[]): { mrr: number; ndcg: number; r10: number } {
  const top = ranks.map((r) => (r !== undefined && r <= 10 ? r : undefined));
  return {
    mrr: top.reduce<number>((s, r) => s + (r === undefined ? 0 : 1 / r), 0) / ranks.length,
    // One relevant document per query: the ideal DCG is 1.
    ndcg: top.reduce<number>((s, r) => s + (r === undefined ? 0 : 1 / Math.log2(r + 1)), 0) / ranks.length,
    r10: top.filter((r) => r !== undefined).length / ranks.length,
  };
}

function sets(): KnownItemSet[] {
  const found: KnownItemSet[] = [];
  if (!corpusAvailable() && process.getuid?.() === 0)
    execFileSync('apt-get', ['install', '-y', '-q', 'manpages-dev'], { stdio: 'ignore' });
  if (corpusAvailable()) {
    const pages = loadManPages();
    found.push({
      name: `manpages-dev 6.03 sections 2+3 (${pages.length} pages, NAME description → page)`,
      docs: pages.map((p) => ({ id: p.id, title: p.id, body: p.body })),
      queries: pages.map((p) => ({ text: p.query, relevant: p.id })),
    });
  } else console.log('manpages-dev: skipped (install the Debian package manpages-dev)');
  if (installDescriptions()) {
    const { items, md5 } = loadDebianDescriptions();
    found.push({
      name: `Debian 12 package descriptions (Translation-en md5 ${md5.slice(0, 8)}…, ${items.length} packages, synopsis → package)`,
      docs: items.map((i) => ({ id: i.id, title: i.title, body: i.body })),
      queries: items.map((i) => ({ text: i.query, relevant: i.id })),
    });
  } else console.log('Debian descriptions: skipped (run as root with network to the Debian mirror)');
  return found;
}

async function embedAll(
  store: SqliteKnowledgeStore,
  provider: EmbeddingProvider,
  dimensions: number,
): Promise<{ chunks: number; ms: number }> {
  const started = performance.now();
  let lastShown = 0;
  const state = await embedSource({
    store: store.workspace('bench'),
    sourceId: 'src',
    provider,
    space: { model: provider.model, dimensions },
    pageSize: 256,
    onProgress: ({ embedded, chunks }) => {
      if (embedded - lastShown >= chunks / 10 || embedded === chunks) {
        lastShown = embedded;
        console.log(
          `  embedding ${embedded}/${chunks} (${((performance.now() - started) / 1000).toFixed(0)} s)`,
        );
      }
    },
  });
  if (state.status !== 'ready') throw new Error(`embedding pass failed: ${state.lastError ?? '?'}`);
  return { chunks: state.chunks, ms: performance.now() - started };
}

async function measureSet(
  set: KnownItemSet,
  provider: DiskEmbeddingCache,
  dimensions: number,
): Promise<void> {
  const store = new SqliteKnowledgeStore(':memory:');
  await ingest(store, set.docs);
  const sentBefore = provider.sent;
  const { chunks, ms } = await embedAll(store, provider, dimensions);
  console.log(
    `\n${set.name}: ${set.queries.length} queries, ${chunks} chunks; embedding pass ${(ms / 1000).toFixed(1)} s, ${provider.sent - sentBefore} texts sent to the model (the rest from the benchmark's disk cache)`,
  );
  const config = embeddingsBenchConfig(provider.model, {
    dataSources: [{ name: 'src', type: 'files', path: '.' }],
  });
  const embeddings = new WorkspaceEmbeddings(
    () => config,
    () => provider,
  );
  const principal = benchPrincipal();
  let lexicalMrr = 0;
  for (const variant of VARIANTS) {
    const service = new KnowledgeService(store, {
      embeddings,
      ...(variant.fusion === undefined ? {} : { fusion: variant.fusion }),
    });
    const ranks: (number | undefined)[] = [];
    let fallbacks = 0;
    for (const query of set.queries) {
      const { records, retrieval } = await service.search(principal, {
        query: query.text,
        limit: 60,
        connectorId: undefined,
        sourceType: undefined,
        snippetChars: 40,
        mode: variant.mode,
      });
      if (retrieval?.used !== variant.mode) fallbacks += 1;
      ranks.push(
        docRank(
          records.map((r) => r.doc_id),
          documentId('bench', 'src', query.relevant),
        ),
      );
    }
    const q = quality(ranks);
    if (variant.mode === 'lexical') lexicalMrr = q.mrr;
    console.log(
      `  ${variant.label.padEnd(32)} MRR@10 ${q.mrr.toFixed(3)}  nDCG@10 ${q.ndcg.toFixed(3)}  R@10 ${q.r10.toFixed(3)}  ×lexical MRR ${(q.mrr / lexicalMrr).toFixed(3)}${fallbacks > 0 ? `  (${fallbacks} fell back to lexical)` : ''}`,
    );
  }
  await store.close();
}

/** Throughput of the embedding pass straight against the model server (no disk cache), and the
 * re-sync of unchanged content. */
async function ingestionBench(
  set: KnownItemSet,
  http: EmbeddingProvider,
  dimensions: number,
  sample: number,
): Promise<void> {
  const store = new SqliteKnowledgeStore(':memory:');
  await ingest(store, set.docs.slice(0, sample));
  let sent = 0;
  const counting: EmbeddingProvider = {
    model: http.model,
    dimensions: http.dimensions,
    embed: (texts, signal) => {
      sent += texts.length;
      return http.embed(texts, signal);
    },
  };
  const first = await embedAll(store, counting, dimensions);
  const afterFirst = sent;
  // A re-sync of unchanged content: the sync skips unchanged documents (same content hash), so the
  // chunks keep their vectors and the embedding pass finds nothing to send.
  const again = await embedAll(store, counting, dimensions);
  console.log(
    `\ningestion with embeddings (${set.name.split(' (')[0]}, first ${sample} documents, ${first.chunks} chunks, straight to the model server): ${((first.chunks / first.ms) * 1000).toFixed(1)} chunks/s; a second pass over unchanged content: ${sent - afterFirst} texts sent, ${again.ms.toFixed(0)} ms`,
  );
  await store.close();
}

/** What a search adds to embed its question: one uncached call to the model server per query. */
async function queryEmbeddingLatency(set: KnownItemSet, http: EmbeddingProvider): Promise<void> {
  const queries = set.queries.slice(-220).map((q) => `${q.text}?`);
  for (const query of queries.slice(0, 20)) await http.embed([query]);
  const timings: number[] = [];
  for (const query of queries.slice(20)) {
    const started = performance.now();
    await http.embed([query]);
    timings.push(performance.now() - started);
  }
  timings.sort((a, b) => a - b);
  const at = (p: number) =>
    (timings[Math.min(timings.length - 1, Math.floor((p / 100) * timings.length))] ?? 0).toFixed(1);
  console.log(
    `\nquestion embedding (one uncached short query per call over HTTP to the local model server, ${timings.length} timed after 20 warm-up, load ${loadavg()[0]?.toFixed(1)}): p50 ${at(50)} ms  p95 ${at(95)} ms  p99 ${at(99)} ms`,
  );
}

export async function hybridBench(): Promise<void> {
  console.log('\n== Hybrid retrieval benchmark (issue 22: lexical vs semantic vs hybrid) ==');
  const { server, http } = await startBenchEmbeddings();
  try {
    console.log(
      `conditions: Node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), load ${loadavg()[0]?.toFixed(1)}; embedded SQLite store in memory; ${server.model} (${server.dimensions} dims) from test/infra/embeddings; chunks of ~1,200 characters embedded as "title\\n\\ntext"; known-item sets: one relevant document per query, ranks over distinct documents of the top 60 chunks`,
    );
    const disk = new DiskEmbeddingCache(http);
    const found = sets();
    for (const set of found) await measureSet(set, disk, server.dimensions);
    const debian = found.find((s) => s.name.startsWith('Debian'));
    if (debian !== undefined) {
      await ingestionBench(debian, http, server.dimensions, 300);
      await queryEmbeddingLatency(debian, http);
    }
    disk.close();
  } finally {
    await server.stop();
  }
}
