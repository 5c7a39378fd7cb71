// Hybrid retrieval quality (issues 22, 39): MRR@10, nDCG@10 and R@10 of lexical, semantic and hybrid
// search (the adaptive default beside the old fixed blend and RRF) on four known-item sets
// (manpages-dev and Debian package descriptions, each natural-language and keyword-style; their
// train and held-out halves apart, with the issue-39 goal lines), with the real all-MiniLM-L6-v2
// served by test/infra/embeddings; plus the embedding pass's throughput against that server and the
// re-sync that makes no embedding call. Every mode runs through the gateway's own KnowledgeService
// on the embedded store, in the same run.
import { cpus, loadavg } from 'node:os';
import { embedSource } from '../../gateway/knowledge/embed-source.js';
import {
  documentId,
  KnowledgeService,
  SqliteKnowledgeStore,
  WorkspaceEmbeddings,
  type EmbeddingProvider,
} from '../../gateway/knowledge/index.js';
import { embeddingsBenchConfig, RRF_60, SEMANTIC, type Variant } from './retrieval-variants.js';
import { hybridSets, type Half, type KnownItemSet } from './hybrid-sets.js';
import { startBenchEmbeddings } from './bench-embeddings.js';
import { DiskEmbeddingCache } from './disk-embedding-cache.js';
import { benchPrincipal, docRank } from './knowledge-bench-support.js';
import { ingest } from './retrieval-bench.js';

const VARIANTS: readonly Variant[] = [
  { label: 'lexical (BM25 + re-rank)', mode: 'lexical' },
  SEMANTIC,
  { label: 'hybrid (default: adaptive)', mode: 'hybrid' },
  {
    label: 'hybrid convex, lexical 0.6 (old)',
    mode: 'hybrid',
    fusion: { kind: 'convex', lexicalWeight: 0.6 },
  },
  RRF_60,
];

interface Quality {
  readonly mrr: number;
  readonly ndcg: number;
  readonly r10: number;
}

function quality(ranks: readonly (number | undefined)[]): Quality {
  const top = ranks.map((r) => (r !== undefined && r <= 10 ? r : undefined));
  return {
    mrr: top.reduce<number>((s, r) => s + (r === undefined ? 0 : 1 / r), 0) / ranks.length,
    // One relevant document per query: the ideal DCG is 1.
    ndcg: top.reduce<number>((s, r) => s + (r === undefined ? 0 : 1 / Math.log2(r + 1)), 0) / ranks.length,
    r10: top.filter((r) => r !== undefined).length / ranks.length,
  };
}

export async function embedAll(
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

interface SetResult {
  readonly set: KnownItemSet;
  /** Per variant label, per half. */
  readonly quality: Map<string, Record<Half, Quality>>;
}

const HALVES: readonly Half[] = ['train', 'held-out'];

/** Every variant over every query of the sets of one corpus (they share the documents). */
async function measureCorpus(
  sets: readonly KnownItemSet[],
  provider: DiskEmbeddingCache,
  dimensions: number,
): Promise<SetResult[]> {
  const first = sets[0] as KnownItemSet;
  const store = new SqliteKnowledgeStore(':memory:');
  await ingest(store, first.docs);
  const sentBefore = provider.sent;
  const { chunks, ms } = await embedAll(store, provider, dimensions);
  console.log(
    `\n${first.name.split(' (')[0]}: ${first.docs.length} documents, ${chunks} chunks; embedding pass ${(ms / 1000).toFixed(1)} s, ${provider.sent - sentBefore} texts sent to the model (the rest from the benchmark's disk cache)`,
  );
  const config = embeddingsBenchConfig(provider.model, {
    dataSources: [{ name: 'src', type: 'files', path: '.' }],
  });
  const embeddings = new WorkspaceEmbeddings(
    () => config,
    () => provider,
  );
  const principal = benchPrincipal();
  const results: SetResult[] = [];
  for (const set of sets) {
    const result: SetResult = { set, quality: new Map() };
    for (const variant of VARIANTS) {
      const service = new KnowledgeService(store, {
        embeddings,
        ...(variant.fusion === undefined ? {} : { fusion: variant.fusion }),
      });
      const ranks: Record<Half, (number | undefined)[]> = { train: [], 'held-out': [] };
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
        ranks[query.half].push(
          docRank(
            records.map((r) => r.doc_id),
            documentId('bench', 'src', query.relevant),
          ),
        );
      }
      if (fallbacks > 0) console.log(`  ${variant.label}: ${fallbacks} queries fell back to lexical`);
      result.quality.set(variant.label, {
        train: quality(ranks.train),
        'held-out': quality(ranks['held-out']),
      });
    }
    results.push(result);
    printSet(result);
  }
  await store.close();
  return results;
}

function printSet({ set, quality: byVariant }: SetResult): void {
  const count = (half: Half) => set.queries.filter((q) => q.half === half).length;
  console.log(
    `\n${set.name}: ${set.queries.length} queries (train ${count('train')}, held-out ${count('held-out')})`,
  );
  console.log(
    `  ${''.padEnd(34)}${HALVES.map((h) => `${h}: MRR@10 nDCG@10  R@10  ×lexical`.padEnd(42)).join('')}`,
  );
  const lexical = byVariant.get(VARIANTS[0]?.label as string) as Record<Half, Quality>;
  for (const [label, q] of byVariant) {
    const cells = HALVES.map((h) => {
      const { mrr, ndcg, r10 } = q[h];
      return `${' '.repeat(h.length + 2)}${mrr.toFixed(3)}  ${ndcg.toFixed(3)}  ${r10.toFixed(3)}  ${(mrr / lexical[h].mrr).toFixed(3)}`.padEnd(
        42,
      );
    });
    console.log(`  ${label.padEnd(34)}${cells.join('')}`);
  }
}

/** The issue-39 goals, on the held-out halves (the train halves chose the rule). */
function printGoals(results: readonly SetResult[]): void {
  const ratio = (r: SetResult, half: Half) => {
    const q = (label: string) => (r.quality.get(label) as Record<Half, Quality>)[half].mrr;
    return q(VARIANTS[2]?.label as string) / q(VARIANTS[0]?.label as string);
  };
  const line = (goal: string, wanted: number, which: readonly SetResult[]) => {
    const cells = which.map(
      (r) =>
        `${r.set.corpus} ${r.set.style} ${ratio(r, 'held-out').toFixed(3)}× (train ${ratio(r, 'train').toFixed(3)}×)`,
    );
    const met = which.every((r) => ratio(r, 'held-out') >= wanted);
    console.log(`goal: ${goal}: ${met ? 'met' : 'NOT met'} — ${cells.join('; ')}`);
  };
  console.log('');
  line('hybrid ≥ 1.00× lexical MRR@10 on every set (held-out)', 1, results);
  line(
    'hybrid ≥ 1.10× lexical MRR@10 on natural-language sets (held-out)',
    1.1,
    results.filter((r) => r.set.style === 'natural'),
  );
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
  console.log('\n== Hybrid retrieval benchmark (issues 22, 39: lexical vs semantic vs hybrid) ==');
  const { server, http } = await startBenchEmbeddings();
  try {
    console.log(
      `conditions: Node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), load ${loadavg()[0]?.toFixed(1)}; embedded SQLite store in memory; ${server.model} (${server.dimensions} dims) from test/infra/embeddings; chunks of ~1,200 characters embedded as "title\\n\\ntext"; known-item sets: one relevant document per query, ranks over distinct documents of the top 60 chunks`,
    );
    const disk = new DiskEmbeddingCache(http);
    const found = hybridSets();
    const results: SetResult[] = [];
    for (const corpus of ['manpages', 'debian'] as const) {
      const mine = found.filter((s) => s.corpus === corpus);
      if (mine.length > 0) results.push(...(await measureCorpus(mine, disk, server.dimensions)));
    }
    printGoals(results);
    const debian = found.find((s) => s.corpus === 'debian' && s.style === 'natural');
    if (debian !== undefined) {
      await ingestionBench(debian, http, server.dimensions, 300);
      await queryEmbeddingLatency(debian, http);
    }
    disk.close();
  } finally {
    await server.stop();
  }
}
