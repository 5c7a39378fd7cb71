// The default answerer of /agent/query (D8): picks sentences from the retrieved chunks by query-term
// coverage and diversity (maximal marginal relevance). Every sentence of the answer is copied
// verbatim from a chunk and cites it, so the answer is verifiably supported by its sources.
// Coverage is judged relative to what was retrieved (issue 8 item 14): a sentence qualifies when it
// covers at least half as many terms as the best sentence does, so a long, chatty question whose
// best sentence covers three of twenty terms still gets an answer. When no sentence covers any term
// but chunks were retrieved, the lead sentence of the best chunk is the answer: retrieval ranked it
// first, and a cited sentence is more use than "nothing found" next to a list of sources.
import { sentencesWithContext } from './answer-sentences.js';
import { coveredCount, sentenceWords, termWeights, weightedCoverage } from './sentence-weights.js';

export interface AnswerSentence {
  readonly text: string;
  readonly chunkId: string;
}

export interface CandidateChunk {
  readonly chunkId: string;
  readonly text: string;
  /** 0 for the best-ranked chunk. */
  readonly rank: number;
}

const MAX_SENTENCES = 3;
const LAMBDA = 0.7;
/** How redundant a sentence is with one already chosen from the same chunk, whatever their words. */
const SAME_CHUNK = 0.5;

function similarity(a: Set<string>, b: Set<string>): number {
  let shared = 0;
  for (const word of a) if (b.has(word)) shared += 1;
  return shared / Math.max(1, Math.min(a.size, b.size));
}

/** The quotable sentences of a chunk, in order (answer-sentences.ts says what is quotable). */
export function splitSentences(text: string): string[] {
  return sentencesWithContext(text).map((s) => s.text);
}

export function extractiveAnswer(
  terms: readonly string[],
  chunks: readonly CandidateChunk[],
): AnswerSentence[] {
  const scored = chunks.flatMap((chunk) =>
    sentencesWithContext(chunk.text).map(({ text, context }) => {
      const parts = sentenceWords(text, context);
      return {
        text,
        chunkId: chunk.chunkId,
        rank: chunk.rank,
        words: parts.all,
        parts,
        covered: coveredCount(parts, terms),
      };
    }),
  );
  if (terms.length === 0 || scored.length === 0) return [];
  const best = scored.reduce((max, c) => Math.max(max, c.covered), 0);
  if (best === 0) return leadSentence(scored);
  // Qualifying counts terms; ranking weighs them (sentence-weights.ts): rare terms over common ones,
  // nothing for words inside quotation marks, and a share for the section label that names them.
  const floor = Math.max(1, Math.ceil(best / 2));
  const weights = termWeights(
    scored.map((c) => c.parts),
    terms,
  );
  const candidates = scored.map((c) => ({
    ...c,
    relevance: c.covered < floor ? 0 : weightedCoverage(c.parts, terms, weights) + 0.1 / (1 + c.rank),
  }));
  // The same sentence often appears in two overlapping chunks: keep its first (best-ranked) copy.
  const seen = new Set<string>();
  const pool = candidates.filter((c) => {
    if (c.relevance <= 0 || seen.has(c.text)) return false;
    seen.add(c.text);
    return true;
  });
  const chosen = byMarginalRelevance(
    pool,
    (c) => c.relevance,
    // A second sentence from the chunk already quoted counts as half a repeat: the answer then
    // reaches into another passage, which is where the answer lies when the first one is off
    // (issue 39's answer set: lexical train cites 0.77 -> 0.81, held-out unchanged).
    (a, b) => Math.max(similarity(a.words, b.words), a.chunkId === b.chunkId ? SAME_CHUNK : 0),
    MAX_SENTENCES,
  );
  return chosen.map(({ text, chunkId }) => ({ text, chunkId }));
}

/** Maximal marginal relevance: up to `max` candidates, each the one whose relevance, less its
 * greatest similarity to those already chosen, scores best (weights LAMBDA and 1 - LAMBDA). */
export function byMarginalRelevance<T>(
  candidates: readonly T[],
  relevance: (candidate: T) => number,
  similarity: (a: T, b: T) => number,
  max: number,
): T[] {
  const pool = [...candidates];
  const chosen: T[] = [];
  while (chosen.length < max && pool.length > 0) {
    let bestIndex = 0;
    let bestScore = Number.NEGATIVE_INFINITY;
    pool.forEach((candidate, index) => {
      const redundancy = chosen.reduce((most, c) => Math.max(most, similarity(candidate, c)), 0);
      const score = LAMBDA * relevance(candidate) - (1 - LAMBDA) * redundancy;
      if (score > bestScore) {
        bestScore = score;
        bestIndex = index;
      }
    });
    chosen.push(...pool.splice(bestIndex, 1));
  }
  return chosen;
}

/** The first quotable sentence of the best-ranked chunk that has one. */
function leadSentence(scored: readonly { text: string; chunkId: string; rank: number }[]): AnswerSentence[] {
  const first = [...scored].sort((a, b) => a.rank - b.rank)[0];
  return first === undefined ? [] : [{ text: first.text, chunkId: first.chunkId }];
}
