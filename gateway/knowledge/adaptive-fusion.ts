// The adaptive fusion of document search (issue 39): a chunk's lexical score relative to the best
// lexical candidate, plus a per-query weight times its cosine above a floor. The weight says how far
// this query's semantic list can be trusted, from a handful of signals of the two lists and the
// query; a fixed blend trusted a weak semantic list and lost to keywords on keyword-style queries.
import type { SearchHit } from './knowledge-store.js';
import { proseOnly } from './code-spans.js';
import { termFeatures } from './rerank.js';

export type FoundBy = 'lexical' | 'semantic' | 'lexical+semantic';

export interface SemanticCandidate {
  readonly hit: SearchHit;
  readonly similarity: number;
}

export interface FusedHit {
  readonly hit: SearchHit;
  readonly score: number;
  readonly foundBy: FoundBy;
}

/** What the rule reads of the query itself: its search terms and how many words it had. */
export interface QueryShape {
  readonly terms: readonly string[];
  /** Word tokens of the query, stop words included. */
  readonly words: number;
}

/** The signals the weight is computed from. */
export interface FusionSignals {
  /** How many search terms the query has (stop words out). */
  readonly terms: number;
  /** Share of the query's words that are stop words: natural language has some, keywords none. */
  readonly stopShare: number;
  /** Share of the query's terms the best lexical chunk contains (rerank.ts's coverage). */
  readonly lexicalCoverage: number;
}

/** Cosines at or below this say nothing for all-MiniLM-L6-v2 (unrelated texts sit around 0.1-0.2). */
export const COSINE_FLOOR = 0.2;

const key = (hit: SearchHit) => `${hit.chunkNo}:${hit.docId}`;

export function fusionSignals(lexical: readonly SearchHit[], shape: QueryShape): FusionSignals {
  const top = lexical[0];
  return {
    terms: shape.terms.length,
    stopShare: shape.words === 0 ? 0 : Math.max(0, 1 - shape.terms.length / shape.words),
    lexicalCoverage:
      top === undefined ? 0 : termFeatures(`${top.title} ${proseOnly(top.text)}`, shape.terms).coverage,
  };
}

/** The semantic list's weight for one query (the lexical list's score over its best is worth 1).
 *
 * Chosen on the train halves of the four known-item sets of `npm run bench -- hybrid` (manpages-dev
 * and Debian package descriptions, each queried by its own one-line descriptions and by three random
 * content words of a chunk) from lists dumped once (test/bench/hybrid-dump.ts, 200 candidates a
 * list, all-MiniLM-L6-v2) and searched offline (test/bench/fusion-search.ts). Two signals carried
 * it: the query's shape and whether the best lexical chunk holds every term. A fixed weight cannot
 * serve both styles: on keyword queries the semantic list alone reaches 0.19-0.23x of lexical MRR@10
 * and any weight above 0 loses (0.5: 0.96x on manpages), while natural-language queries gain up to
 * 1.07x from weights of 1-3. Agreement of the lists' top 10 and the top cosine were tried and added
 * nothing once shape and coverage were in. Held-out halves, MRR@10 ÷ lexical: manpages natural
 * 1.069, keyword 1.003; Debian natural 1.051, keyword 1.000 (docs/benchmarks.md#hybrid-retrieval). */
export function semanticWeight(signals: FusionSignals): number {
  const missesTerms = signals.lexicalCoverage < 1;
  // A question or a description (a stop word, or four terms and more): meaning helps.
  if (signals.stopShare > 0 || signals.terms >= 4) return missesTerms ? 3 : 1;
  // Two or three bare keywords: their words decide, unless no chunk holds them all.
  return missesTerms ? 0.2 : 0;
}

/** Both lists fused by the adaptive rule, best first; ties by lexical rank, then semantic rank. */
export function adaptiveScores(
  lexical: readonly SearchHit[],
  semantic: readonly SemanticCandidate[],
  shape: QueryShape,
): FusedHit[] {
  const weight = semanticWeight(fusionSignals(lexical, shape));
  const best = lexical[0]?.score ?? 0;
  const cosines = new Map(semantic.map((c) => [key(c.hit), c.similarity]));
  // A lexical candidate the semantic list missed ranked below all of it: its cosine is at most the
  // list's last one, which stands in for it (a fixed pool keeps that independent of `limit`).
  const missing = semantic.at(-1)?.similarity ?? COSINE_FLOOR;
  const above = (cosine: number) => Math.max(0, cosine - COSINE_FLOOR);
  const entries: { hit: SearchHit; score: number; foundBy: FoundBy; lexRank: number; semRank: number }[] = [];
  const seen = new Map<string, number>();
  lexical.forEach((hit, rank) => {
    const cosine = cosines.get(key(hit));
    seen.set(key(hit), entries.length);
    entries.push({
      hit,
      score: (best > 0 ? hit.score / best : 0) + weight * above(cosine ?? missing),
      foundBy: cosine === undefined ? 'lexical' : 'lexical+semantic',
      lexRank: rank,
      semRank: Number.POSITIVE_INFINITY,
    });
  });
  semantic.forEach((candidate, rank) => {
    const at = seen.get(key(candidate.hit));
    if (at !== undefined) (entries[at] as { semRank: number }).semRank = rank;
    else
      entries.push({
        hit: candidate.hit,
        score: weight * above(candidate.similarity),
        foundBy: 'semantic',
        lexRank: Number.POSITIVE_INFINITY,
        semRank: rank,
      });
  });
  return entries
    .sort((a, b) => b.score - a.score || a.lexRank - b.lexRank || a.semRank - b.semRank)
    .map(({ hit, score, foundBy }) => ({ hit, score, foundBy }));
}
