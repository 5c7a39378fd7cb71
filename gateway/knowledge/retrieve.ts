// One search's candidate retrieval (issue 22): lexical (BM25 + coverage/proximity re-rank), semantic
// (cosine over chunk vectors) or hybrid (both, fused). Lexical is the path that always works: when a
// semantic mode is asked for but the workspace has no embeddings, or the question cannot be embedded
// in time, the search answers lexically and says why. The question is embedded while the lexical
// search runs, so hybrid costs the longer of the two, not their sum.
import type { WorkspaceEmbeddings } from './embeddings/workspace-embeddings.js';
import { DEFAULT_FUSION, fuse, type FoundBy, type Fusion } from './hybrid-fusion.js';
import type { EmbeddingSpace, SearchFilters, SearchHit, WorkspaceStore } from './knowledge-store.js';
import { embedQuery, type QueryVector, type RetrievalFallback } from './query-embedding.js';
import { rerank } from './rerank.js';

export const RETRIEVAL_MODES = ['lexical', 'semantic', 'hybrid'] as const;
export type RetrievalMode = (typeof RETRIEVAL_MODES)[number];

export type { RetrievalFallback } from './query-embedding.js';

export interface Retrieval {
  readonly requested: RetrievalMode;
  readonly used: RetrievalMode;
  readonly fallbackReason: RetrievalFallback | null;
}

export interface RetrievedHit {
  readonly hit: SearchHit;
  readonly foundBy: FoundBy;
}

export interface Retrieved {
  readonly hits: RetrievedHit[];
  readonly retrieval: Retrieval;
  /** Whether the workspace has an embeddings provider (responses then say how they were found). */
  readonly embeddingsConfigured: boolean;
  /** The question's vector when one was made (the semantic answerer reuses it). */
  readonly question: { readonly vector: Float32Array; readonly space: EmbeddingSpace } | undefined;
}

export interface RetrieveInput {
  readonly store: WorkspaceStore;
  readonly workspace: string;
  readonly query: string;
  readonly terms: readonly string[];
  readonly filters: SearchFilters;
  /** Candidates taken from each list before fusion. */
  readonly poolSize: number;
  readonly mode: RetrievalMode | undefined;
  readonly embeddings: WorkspaceEmbeddings | undefined;
  readonly fusion?: Fusion | undefined;
}

function embedQuestion(input: RetrieveInput): Promise<QueryVector> {
  return embedQuery(input.embeddings, input.workspace, input.query);
}

async function lexicalHits(input: RetrieveInput): Promise<SearchHit[]> {
  const candidates = await input.store.search(input.terms, input.filters, input.poolSize);
  return rerank(candidates, input.terms);
}

async function semanticHits(
  input: RetrieveInput,
  question: { vector: Float32Array; space: EmbeddingSpace },
  known: readonly SearchHit[],
): Promise<{ hit: SearchHit; similarity: number }[]> {
  const vectorHits = await input.store.vectorSearch(
    input.filters,
    question.vector,
    question.space,
    input.poolSize,
  );
  const byKey = new Map(known.map((hit) => [`${hit.chunkNo}:${hit.docId}`, hit]));
  const missing = vectorHits.filter((hit) => !byKey.has(`${hit.chunkNo}:${hit.docId}`));
  for (const hit of await input.store.chunkHits(input.filters, missing))
    byKey.set(`${hit.chunkNo}:${hit.docId}`, hit);
  return vectorHits.flatMap((vectorHit) => {
    const hit = byKey.get(`${vectorHit.chunkNo}:${vectorHit.docId}`);
    return hit === undefined ? [] : [{ hit, similarity: vectorHit.similarity }];
  });
}

export async function retrieve(input: RetrieveInput): Promise<Retrieved> {
  const embeddingsConfigured = input.embeddings?.provider(input.workspace) !== undefined;
  const requested = input.mode ?? (embeddingsConfigured ? 'hybrid' : 'lexical');
  const questionPromise: Promise<QueryVector> =
    requested === 'lexical' ? Promise.resolve({ ok: false, reason: 'not_configured' }) : embedQuestion(input);
  const lexicalPromise = requested === 'semantic' ? undefined : lexicalHits(input);
  // The question's embedding never rejects (a failure is a fallback), so waiting on both together
  // leaves no rejection unobserved.
  const [question, lexicalSettled] = await Promise.all([
    questionPromise,
    lexicalPromise ?? Promise.resolve(undefined),
  ]);
  if (requested === 'lexical' || !question.ok) {
    const hits = lexicalSettled ?? (await lexicalHits(input));
    return {
      hits: hits.map((hit) => ({ hit, foundBy: 'lexical' })),
      retrieval: {
        requested,
        used: 'lexical',
        fallbackReason: requested === 'lexical' || question.ok ? null : question.reason,
      },
      embeddingsConfigured,
      question: undefined,
    };
  }
  const lexical = lexicalSettled ?? [];
  let semantic: { hit: SearchHit; similarity: number }[];
  try {
    semantic = await semanticHits(input, question, lexical);
  } catch (error) {
    // A vector the store cannot compare (wrong length for the stored space, all zeros) is the
    // provider's answer being unusable, not a store failure: answer lexically.
    if (!(error instanceof RangeError)) throw error;
    const hits = lexicalSettled ?? (await lexicalHits(input));
    return {
      hits: hits.map((hit) => ({ hit, foundBy: 'lexical' })),
      retrieval: { requested, used: 'lexical', fallbackReason: 'malformed_response' },
      embeddingsConfigured,
      question: undefined,
    };
  }
  const hits: RetrievedHit[] =
    requested === 'semantic'
      ? semantic.map(({ hit, similarity }) => ({ hit: { ...hit, score: similarity }, foundBy: 'semantic' }))
      : fuse(lexical, semantic, input.fusion ?? DEFAULT_FUSION, {
          terms: input.terms,
          words: (input.query.match(/[\p{L}\p{N}_]+/gu) ?? []).length,
        }).map(({ hit, score, foundBy }) => ({ hit: { ...hit, score }, foundBy }));
  return {
    hits,
    retrieval: { requested, used: requested, fallbackReason: null },
    embeddingsConfigured,
    question,
  };
}
