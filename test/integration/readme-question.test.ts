// The README's own example question (issue 39): indexed like the default config (examples/
// embedded.yaml's `docs` source over this repository, the real files connector, the embedded SQLite
// store), "what happens when an upstream keeps failing" is answered from a circuit-breaker section —
// lexically, and with the real all-MiniLM-L6-v2 embeddings (hybrid, sentences chosen by meaning).
// The breaker sections are found afresh in the docs by the answer set's anchors, so the test keeps
// holding when the docs change elsewhere and fails when the answer drifts off the breaker.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processSecretReader } from '../../gateway/config/index.js';
import { embedSource } from '../../gateway/knowledge/embed-source.js';
import {
  HttpEmbeddingProvider,
  KnowledgeService,
  parseChunkId,
  SqliteKnowledgeStore,
  WorkspaceEmbeddings,
  type QueryResult,
} from '../../gateway/knowledge/index.js';
import { loadAnswerSet } from '../bench/answer-set/answer-set.js';
import { indexDocs } from '../bench/answer-set/docs-index.js';
import { judge } from '../bench/answer-set/judge.js';
import { benchPrincipal } from '../bench/knowledge-bench-support.js';
import { embeddingsBenchConfig } from '../bench/retrieval-variants.js';
import { startEmbeddings, type RunningEmbeddings } from '../infra/embeddings-server.js';

const ROOT = process.cwd();
const QUESTION = 'what happens when an upstream keeps failing';
const breaker = loadAnswerSet(ROOT).find((q) => q.question === QUESTION)!;
let store: SqliteKnowledgeStore;
let docs: Map<string, string>;
let model: RunningEmbeddings;

beforeAll(async () => {
  store = new SqliteKnowledgeStore(':memory:');
  docs = await indexDocs(store, ROOT);
  model = await startEmbeddings();
}, 120_000);

afterAll(async () => {
  await store?.close();
  await model?.stop();
});

function firstCitation(result: QueryResult) {
  const pathOf = new Map([...docs].map(([path, docId]) => [docId, path]));
  const files = new Map(breaker.answers.map((a) => [a.doc, readFileSync(`${ROOT}/${a.doc}`, 'utf8')]));
  const citations = result.citations.map((c) => ({
    path: pathOf.get(parseChunkId(c.chunk_id)?.docId ?? '') ?? '',
    text: c.text,
  }));
  return { citations, verdict: judge(breaker, files, citations, [], []) };
}

const request = {
  query: QUESTION,
  limit: 10,
  connectorId: undefined,
  sourceType: undefined,
  snippetChars: 300,
};

describe("the README's example question on the default config's docs", () => {
  it('the README still asks it, and its breaker sections are in the answer set', () => {
    expect(readFileSync(`${ROOT}/README.md`, 'utf8')).toContain(QUESTION);
    expect(breaker.answers.length).toBeGreaterThanOrEqual(3);
  });

  it('lexical: the first citation lies in a breaker section', async () => {
    const result = await new KnowledgeService(store).query(benchPrincipal(), request);
    const { citations, verdict } = firstCitation(result);
    expect(verdict.firstCites, JSON.stringify(citations)).toBe(true);
    expect(result.answer).toMatch(/breaker|upstream_circuit_open/);
  });

  it('with embeddings (hybrid, sentences by meaning): the first citation lies in a breaker section', async () => {
    const provider = new HttpEmbeddingProvider(
      {
        baseUrl: `${model.url}/v1`,
        model: model.model,
        batchSize: 32,
        concurrency: 2,
        timeoutMs: 300_000,
        maxRetries: 2,
        queryTimeoutMs: 60_000,
      },
      { secrets: processSecretReader(process.env) },
    );
    const state = await embedSource({
      store: store.workspace('bench'),
      sourceId: 'src',
      provider,
      space: { model: provider.model, dimensions: model.dimensions },
      pageSize: 256,
      onProgress: () => undefined,
    });
    expect(state.status).toBe('ready');
    const config = embeddingsBenchConfig(provider.model, {
      dataSources: [{ name: 'src', type: 'files', path: '.' }],
    });
    const embeddings = new WorkspaceEmbeddings(
      () => config,
      () => provider,
    );
    const result = await new KnowledgeService(store, { embeddings }).query(benchPrincipal(), request);
    expect(result.retrieval).toMatchObject({ used: 'hybrid', sentences_by: 'meaning' });
    const { citations, verdict } = firstCitation(result);
    expect(verdict.firstCites, JSON.stringify(citations)).toBe(true);
  }, 600_000);
});
