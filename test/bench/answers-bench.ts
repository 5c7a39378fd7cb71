// The answer benchmark (issue 39 goal 3): the answer set's questions over this repository's docs,
// indexed like the default config, asked of /agent/query's service path in lexical, semantic and
// hybrid mode (the real all-MiniLM-L6-v2 for the last two), on the train and held-out splits:
// answer-cites-source rate, source-contains-answer rate and MRR@10 of the answering document.
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { embedSource } from '../../gateway/knowledge/embed-source.js';
import {
  KnowledgeService,
  parseChunkId,
  SqliteKnowledgeStore,
  WorkspaceEmbeddings,
  type RetrievalMode,
} from '../../gateway/knowledge/index.js';
import { loadAnswerSet, type AnswerQuestion } from './answer-set/answer-set.js';
import { indexDocs } from './answer-set/docs-index.js';
import { judge, type Verdict } from './answer-set/judge.js';
import { startBenchEmbeddings } from './bench-embeddings.js';
import { DiskEmbeddingCache } from './disk-embedding-cache.js';
import { benchPrincipal } from './knowledge-bench-support.js';
import { embeddingsBenchConfig } from './retrieval-variants.js';

export const CITES_GOAL = 0.8;

export interface AnswerRun {
  readonly question: AnswerQuestion;
  readonly verdict: Verdict;
  readonly answer: string;
}

/** Asks every question in one mode and judges each answer. */
export async function askAll(
  service: KnowledgeService,
  store: SqliteKnowledgeStore,
  root: string,
  docs: ReadonlyMap<string, string>,
  questions: readonly AnswerQuestion[],
  mode: RetrievalMode | undefined,
): Promise<AnswerRun[]> {
  const pathOf = new Map([...docs].map(([path, docId]) => [docId, path]));
  const files = new Map([...docs.keys()].map((path) => [path, readFileSync(`${root}/${path}`, 'utf8')]));
  const ws = store.workspace('bench');
  const principal = benchPrincipal();
  const runs: AnswerRun[] = [];
  for (const question of questions) {
    const request = {
      query: question.question,
      limit: 10,
      connectorId: undefined,
      sourceType: undefined,
      snippetChars: 300,
      ...(mode === undefined ? {} : { mode }),
    };
    const result = await service.query(principal, request);
    const ranked = await service.search(principal, { ...request, limit: 30, snippetChars: 40 });
    const path = (chunk: string) => pathOf.get(parseChunkId(chunk)?.docId ?? '') ?? '';
    const sources = [];
    for (const record of result.sources) {
      const { docId, chunkNo } = parseChunkId(record.chunk_id) ?? { docId: '', chunkNo: -1 };
      const [chunk] = await ws.getChunks(docId, chunkNo, 1);
      if (chunk !== undefined)
        sources.push({ path: path(record.chunk_id), charStart: chunk.charStart, charEnd: chunk.charEnd });
    }
    const verdict = judge(
      question,
      files,
      result.citations.map((c) => ({ path: path(c.chunk_id), text: c.text })),
      sources,
      ranked.records.map((r) => path(r.chunk_id)),
    );
    runs.push({ question, verdict, answer: result.answer });
  }
  return runs;
}

export function summarise(runs: readonly AnswerRun[]): {
  cites: number;
  first: number;
  sources: number;
  mrr: number;
} {
  const n = Math.max(1, runs.length);
  const share = (f: (v: Verdict) => boolean) => runs.filter((r) => f(r.verdict)).length / n;
  return {
    cites: share((v) => v.cites),
    first: share((v) => v.firstCites),
    sources: share((v) => v.sourceContains),
    mrr:
      runs.reduce((s, r) => {
        const rank = r.verdict.docRank;
        return s + (rank !== undefined && rank <= 10 ? 1 / rank : 0);
      }, 0) / n,
  };
}

function print(mode: RetrievalMode, runs: readonly AnswerRun[]): void {
  for (const split of ['train', 'held-out'] as const) {
    const part = runs.filter((r) => r.question.split === split);
    const s = summarise(part);
    console.log(
      `  ${mode.padEnd(8)} ${split.padEnd(8)} (${part.length}) answer cites source ${s.cites.toFixed(2)}  first citation ${s.first.toFixed(2)}  source contains answer ${s.sources.toFixed(2)}  MRR@10 answering doc ${s.mrr.toFixed(3)}  goal cites ≥ ${CITES_GOAL}: ${s.cites >= CITES_GOAL ? 'met' : 'not met'}`,
    );
  }
  // AGW_BENCH_VERBOSE=1 names the questions whose answer cites no answering section.
  if (process.env['AGW_BENCH_VERBOSE'] === '1')
    for (const r of runs.filter((x) => !x.verdict.cites))
      console.log(`    miss [${mode}] ${r.question.id}: ${r.answer.slice(0, 200)}`);
}

async function lexicalOnly(root: string, questions: readonly AnswerQuestion[]): Promise<void> {
  const store = new SqliteKnowledgeStore(':memory:');
  const docs = await indexDocs(store, root);
  console.log(`conditions: lexical only (AGW_ANSWERS_MODES=lexical), ${docs.size} files`);
  print('lexical', await askAll(new KnowledgeService(store), store, root, docs, questions, 'lexical'));
  await store.close();
}

export async function answersBench(root = process.cwd()): Promise<void> {
  console.log('\n== Answer benchmark (issue 39 goal 3: answers that cite the answering section) ==');
  const questions = loadAnswerSet(root);
  // AGW_ANSWERS_MODES=lexical: the lexical rows only, without the model server (a quick dev loop).
  const modes = (process.env['AGW_ANSWERS_MODES'] ?? 'lexical,semantic,hybrid').split(',') as RetrievalMode[];
  if (modes.every((m) => m === 'lexical')) return lexicalOnly(root, questions);
  const { server, http } = await startBenchEmbeddings();
  const provider = new DiskEmbeddingCache(http);
  try {
    const store = new SqliteKnowledgeStore(':memory:');
    const docs = await indexDocs(store, root);
    const space = { model: provider.model, dimensions: server.dimensions };
    const state = await embedSource({
      store: store.workspace('bench'),
      sourceId: 'src',
      provider,
      space,
      pageSize: 256,
      onProgress: () => undefined,
    });
    if (state.status !== 'ready') throw new Error(`embedding pass failed: ${state.lastError ?? '?'}`);
    console.log(
      `conditions: Node ${process.version}, ${cpus().length} CPUs, load ${loadavg()[0]?.toFixed(1)}; the docs of examples/embedded.yaml's \`docs\` source at this commit (${docs.size} files, ${state.chunks} chunks) in the embedded SQLite store; ${questions.length} questions of test/bench/answer-set/questions.json (${questions.filter((q) => q.split === 'train').length} train, ${questions.filter((q) => q.split === 'held-out').length} held-out); /agent/query's service path, limit 10, extractive answerer; semantic and hybrid with ${server.model} (${server.dimensions} dims)`,
    );
    const config = embeddingsBenchConfig(provider.model, {
      dataSources: [{ name: 'src', type: 'files', path: '.' }],
    });
    const embeddings = new WorkspaceEmbeddings(
      () => config,
      () => provider,
    );
    const service = new KnowledgeService(store, { embeddings });
    for (const mode of modes) print(mode, await askAll(service, store, root, docs, questions, mode));
    await store.close();
  } finally {
    provider.close();
    await server.stop();
  }
}
