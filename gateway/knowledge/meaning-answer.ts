// The extractive answer by meaning (issue 22): when the question was embedded, the sentences of the
// best-ranked chunks are embedded too and chosen by cosine similarity to the question, with maximal
// marginal relevance against each other, so a question worded unlike the text still gets the
// sentence that answers it (the same maximal-marginal-relevance selection as the word answerer). Every sentence is still quoted verbatim with its chunk's citation, and
// code blocks are never quoted (splitSentences keeps prose only). Word overlap (extractive-answer.ts)
// stays the answer when there are no embeddings or this call fails.
import type { EmbeddingProvider } from './embeddings/embedding-provider.js';
import {
  byMarginalRelevance,
  splitSentences,
  type AnswerSentence,
  type CandidateChunk,
} from './extractive-answer.js';

/** Chunks whose sentences are considered, best-ranked first, and the most sentences embedded: the
 * answering section is among the first eight chunks more often than the first five (issue 39's
 * answer set: cites rate, train split, semantic 0.58 -> 0.65, hybrid 0.69 -> 0.73), for 60 % more
 * sentences to embed per question. */
export const MEANING_CHUNKS = 8;
export const MEANING_MAX_SENTENCES = 64;
const MAX_ANSWER_SENTENCES = 3;
/** A sentence qualifies when its similarity lies in the top share of the candidates' range. */
const QUALIFYING_SHARE = 0.6;

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i += 1) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

export async function meaningAnswer(
  provider: EmbeddingProvider,
  question: Float32Array,
  chunks: readonly CandidateChunk[],
  signal?: AbortSignal,
): Promise<AnswerSentence[]> {
  const seen = new Set<string>();
  const candidates = [...chunks]
    .sort((a, b) => a.rank - b.rank)
    .slice(0, MEANING_CHUNKS)
    .flatMap((chunk) => splitSentences(chunk.text).map((text) => ({ text, chunk })))
    // The same sentence often appears in two overlapping chunks: keep its best-ranked copy.
    .filter(({ text }) => !seen.has(text) && seen.add(text) !== undefined)
    .slice(0, MEANING_MAX_SENTENCES);
  if (candidates.length === 0) return [];
  const vectors = await provider.embed(
    candidates.map(({ text }) => text),
    signal,
  );
  const scored = candidates.map((candidate, index) => {
    const vector = vectors[index] as Float32Array;
    return {
      ...candidate,
      vector,
      // A small preference for better-ranked chunks breaks near ties the retrieval already decided.
      relevance: cosine(question, vector) + 0.01 / (1 + candidate.chunk.rank),
    };
  });
  const best = Math.max(...scored.map((s) => s.relevance));
  const worst = Math.min(...scored.map((s) => s.relevance));
  const floor = worst + QUALIFYING_SHARE * (best - worst);
  const chosen = byMarginalRelevance(
    scored.filter((s) => s.relevance >= floor),
    (s) => s.relevance,
    (a, b) => cosine(a.vector, b.vector),
    MAX_ANSWER_SENTENCES,
  );
  return chosen.map(({ text, chunk }) => ({ text, chunkId: chunk.chunkId }));
}
