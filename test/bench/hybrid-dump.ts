// `npm run bench -- hybrid-dump`: a tool for choosing the fusion rule, not a measurement. Writes, for
// every query of the four hybrid sets, both candidate lists as search builds them (BM25 + re-rank,
// and cosine; 200 chunks each) with each chunk's features (lexical coverage, and the cosine of every
// lexical candidate: what "completing" a score would give), so fusion rules can be compared offline
// in seconds (test/bench/fusion-search.mjs). Output: $AGW_FUSION_DUMP or /tmp/fusion-dump.jsonl.
import { createWriteStream } from 'node:fs';
import { chunkText, documentId, queryTerms, SqliteKnowledgeStore } from '../../gateway/knowledge/index.js';
import { proseOnly } from '../../gateway/knowledge/code-spans.js';
import { embeddingText } from '../../gateway/knowledge/embed-source.js';
import { rerank, termFeatures } from '../../gateway/knowledge/rerank.js';
import { startBenchEmbeddings } from './bench-embeddings.js';
import { DiskEmbeddingCache } from './disk-embedding-cache.js';
import { embedAll } from './hybrid-bench.js';
import { hybridSets, type KnownItemSet } from './hybrid-sets.js';
import { ingest } from './retrieval-bench.js';

const POOL = 200;
const round = (x: number) => Math.round(x * 1e5) / 1e5;

function cosine(a: Float32Array, b: Float32Array): number {
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < a.length; i += 1) {
    ab += (a[i] as number) * (b[i] as number);
    aa += (a[i] as number) ** 2;
    bb += (b[i] as number) ** 2;
  }
  return ab / Math.sqrt(aa * bb);
}

export async function hybridDump(): Promise<void> {
  const path = process.env['AGW_FUSION_DUMP'] ?? '/tmp/fusion-dump.jsonl';
  const out = createWriteStream(path);
  const { server, http } = await startBenchEmbeddings();
  const disk = new DiskEmbeddingCache(http);
  try {
    const sets = hybridSets();
    // AGW_FUSION_CORPUS=debian (or manpages) dumps one corpus only.
    const only = process.env['AGW_FUSION_CORPUS'];
    for (const corpus of ['manpages', 'debian'] as const) {
      const mine = sets.filter((s) => s.corpus === corpus);
      if (mine.length === 0 || (only !== undefined && only !== corpus)) continue;
      const docs = (mine[0] as KnownItemSet).docs;
      const store = new SqliteKnowledgeStore(':memory:');
      await ingest(store, docs);
      await embedAll(store, disk, server.dimensions);
      const vectors = new Map<string, Float32Array>();
      for (const doc of docs) {
        const chunks = chunkText(doc.body);
        const got = await disk.embed(chunks.map((c) => embeddingText(doc.title, c.text)));
        chunks.forEach((c, i) =>
          vectors.set(`${c.chunkNo}:${documentId('bench', 'src', doc.id)}`, got[i] as Float32Array),
        );
      }
      const docIndex = new Map(docs.map((d, i) => [documentId('bench', 'src', d.id), i]));
      const ws = store.workspace('bench');
      const filters = { allowedSourceIds: ['src'] };
      // The questions' vectors in batches first (one HTTP call per question would take longer than
      // the searches).
      const questions = [...new Set(mine.flatMap((set) => set.queries.map((q) => q.text)))];
      for (let i = 0; i < questions.length; i += 64) await disk.embed(questions.slice(i, i + 64));
      for (const set of mine) {
        const started = performance.now();
        for (const query of set.queries) {
          const terms = queryTerms(query.text);
          const words = query.text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
          const [vector] = await disk.embed([query.text]);
          const q = vector as Float32Array;
          const lexical = rerank(await ws.search(terms, filters, POOL), terms);
          const semantic = await ws.vectorSearch(
            filters,
            q,
            { model: disk.model, dimensions: q.length },
            POOL,
          );
          out.write(
            `${JSON.stringify({
              set: `${corpus}-${set.style}`,
              half: query.half,
              words: words.length,
              terms: terms.length,
              relevant: docIndex.get(documentId('bench', 'src', query.relevant)),
              lex: lexical.map((h) => [
                docIndex.get(h.docId),
                h.chunkNo,
                round(h.score),
                round(termFeatures(`${h.title} ${proseOnly(h.text)}`, terms).coverage),
                round(cosine(q, vectors.get(`${h.chunkNo}:${h.docId}`) as Float32Array)),
              ]),
              sem: semantic.map((h) => [docIndex.get(h.docId), h.chunkNo, round(h.similarity)]),
            })}\n`,
          );
        }
        console.log(
          `${set.name}: ${set.queries.length} queries dumped in ${((performance.now() - started) / 1000).toFixed(0)} s`,
        );
      }
      await store.close();
    }
  } finally {
    disk.close();
    await new Promise((resolve) => out.end(resolve));
    await server.stop();
  }
  console.log(`wrote ${path}`);
}
