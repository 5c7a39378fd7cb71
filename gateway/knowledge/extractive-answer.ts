// The default answerer of /agent/query (D8): picks sentences from the retrieved chunks by query-term
// coverage and diversity (maximal marginal relevance). Every sentence of the answer is copied
// verbatim from a chunk and cites it, so the answer is verifiably supported by its sources.
// Coverage is judged relative to what was retrieved (issue 8 item 14): a sentence qualifies when it
// covers at least half as many terms as the best sentence does, so a long, chatty question whose
// best sentence covers three of twenty terms still gets an answer. When no sentence covers any term
// but chunks were retrieved, the lead sentence of the best chunk is the answer: retrieval ranked it
// first, and a cited sentence is more use than "nothing found" next to a list of sources.
import { proseOnly } from './code-spans.js';

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

function words(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []);
}

function stemMatches(word: string, term: string): boolean {
  const stem = term.length > 5 ? term.slice(0, term.length - 2) : term;
  return word.startsWith(stem);
}

function similarity(a: Set<string>, b: Set<string>): number {
  let shared = 0;
  for (const word of a) if (b.has(word)) shared += 1;
  return shared / Math.max(1, Math.min(a.size, b.size));
}

export function splitSentences(text: string): string[] {
  // A sentence ends at . ! or ? followed by whitespace, so "2.5 GB" inside a sentence does not split it.
  // Paragraphs and Markdown heading lines are separate blocks first, so a heading without a full stop
  // does not swallow the sentence after it. Fenced code blocks are not prose and are dropped first.
  return (
    proseOnly(text)
      .split(/\n\s*\n|\n(?=\s*#)|(?<=^\s*#[^\n]*)\n/mu)
      .map((block) => block.replace(/\s+/g, ' ').trim())
      .flatMap((block) => block.split(/(?<=[.!?]["')\]]?)\s+/u))
      .map((s) => s.trim())
      // Fragments (a cut-off tail, a table cell) are not sentences worth citing.
      .filter(
        (s) =>
          s.length >= 20 && s.length <= 600 && s.split(' ').length >= 6 && /^[\p{L}\p{N}"'*`(-]/u.test(s),
      )
  );
}

export function extractiveAnswer(
  terms: readonly string[],
  chunks: readonly CandidateChunk[],
): AnswerSentence[] {
  const scored = chunks.flatMap((chunk) =>
    splitSentences(chunk.text).map((text) => {
      const sentenceWords = words(text);
      const covered = terms.filter((term) =>
        [...sentenceWords].some((word) => stemMatches(word, term)),
      ).length;
      return { text, chunkId: chunk.chunkId, rank: chunk.rank, words: sentenceWords, covered };
    }),
  );
  if (terms.length === 0 || scored.length === 0) return [];
  const best = scored.reduce((max, c) => Math.max(max, c.covered), 0);
  if (best === 0) return leadSentence(scored);
  const floor = Math.max(1, Math.ceil(best / 2));
  const candidates = scored.map((c) => ({
    ...c,
    relevance: c.covered < floor ? 0 : c.covered / terms.length + 0.1 / (1 + c.rank),
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
    (a, b) => similarity(a.words, b.words),
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
