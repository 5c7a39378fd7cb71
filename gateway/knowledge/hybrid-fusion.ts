// Fuses the lexical and the semantic candidate lists of one search into one ranking (issue 22). Two
// rules are implemented so the benchmark can compare them on the same run: reciprocal rank fusion
// (ranks only) and a convex blend of min-max-normalised scores (the re-ranked BM25 score and the
// cosine). Which one search uses, and with what weight, was decided by measurement: DEFAULT_FUSION.
import type { SearchHit } from './knowledge-store.js';

export type FoundBy = 'lexical' | 'semantic' | 'lexical+semantic';

export type Fusion =
  { readonly kind: 'rrf'; readonly k: number } | { readonly kind: 'convex'; readonly lexicalWeight: number };

export interface SemanticCandidate {
  readonly hit: SearchHit;
  readonly similarity: number;
}

export interface FusedHit {
  readonly hit: SearchHit;
  readonly score: number;
  readonly foundBy: FoundBy;
}

/** The rule search uses, chosen by measurement (npm run bench -- hybrid, all-MiniLM-L6-v2): of RRF
 * (k 60) and convex blends with lexical weights 0.3-0.7, the 0.6 blend was best on both known-item
 * sets, MRR@10 1.070x lexical on manpages-dev and 1.041x on Debian package descriptions; RRF was
 * 1.005x and 1.003x, and blends that lean on the (weaker) semantic list fell below lexical (0.3:
 * 0.977x on manpages). docs/benchmarks.md#hybrid-retrieval. */
export const DEFAULT_FUSION: Fusion = { kind: 'convex', lexicalWeight: 0.6 };

function key(hit: SearchHit): string {
  return `${hit.chunkNo}:${hit.docId}`;
}

/** Scores mapped onto [0, 1] by the list's own min and max (all 1 when they are equal). */
function normalised(scores: readonly number[]): number[] {
  const max = Math.max(...scores);
  const min = Math.min(...scores);
  return scores.map((score) => (max === min ? 1 : (score - min) / (max - min)));
}

interface Entry<T> {
  item: T;
  lexical: number | undefined;
  semantic: number | undefined;
  lexicalRank: number;
  semanticRank: number;
}

/** A candidate of one list with its score there (BM25 or cosine), best first. */
export interface Scored<T> {
  readonly item: T;
  readonly score: number;
}

export interface Fused<T> {
  readonly item: T;
  readonly score: number;
  readonly foundBy: FoundBy;
}

/** One ranking of both lists' chunks, best first; ties by lexical rank, then semantic rank. */
export function fuse(
  lexical: readonly SearchHit[],
  semantic: readonly SemanticCandidate[],
  fusion: Fusion = DEFAULT_FUSION,
): FusedHit[] {
  return fuseRanked(
    lexical.map((hit) => ({ item: hit, score: hit.score })),
    semantic.map((candidate) => ({ item: candidate.hit, score: candidate.similarity })),
    key,
    fusion,
  ).map(({ item, score, foundBy }) => ({ hit: item, score, foundBy }));
}

/** The fusion of any two ranked lists whose items `keyOf` identifies (chunks, tools). */
export function fuseRanked<T>(
  lexical: readonly Scored<T>[],
  semantic: readonly Scored<T>[],
  keyOf: (item: T) => string,
  fusion: Fusion = DEFAULT_FUSION,
): Fused<T>[] {
  const entries = new Map<string, Entry<T>>();
  const lexicalScores = normalised(lexical.map((candidate) => candidate.score));
  lexical.forEach((candidate, rank) => {
    entries.set(keyOf(candidate.item), {
      item: candidate.item,
      lexical: fusion.kind === 'rrf' ? 1 / (fusion.k + rank + 1) : lexicalScores[rank],
      semantic: undefined,
      lexicalRank: rank,
      semanticRank: Number.POSITIVE_INFINITY,
    });
  });
  const semanticScores = normalised(semantic.map((candidate) => candidate.score));
  semantic.forEach((candidate, rank) => {
    const value = fusion.kind === 'rrf' ? 1 / (fusion.k + rank + 1) : (semanticScores[rank] as number);
    const known = entries.get(keyOf(candidate.item));
    if (known !== undefined) {
      known.semantic = value;
      known.semanticRank = rank;
    } else
      entries.set(keyOf(candidate.item), {
        item: candidate.item,
        lexical: undefined,
        semantic: value,
        lexicalRank: Number.POSITIVE_INFINITY,
        semanticRank: rank,
      });
  });
  const weight = fusion.kind === 'rrf' ? 0.5 : fusion.lexicalWeight;
  return [...entries.values()]
    .map((entry) => ({
      entry,
      score: weight * (entry.lexical ?? 0) + (1 - weight) * (entry.semantic ?? 0),
    }))
    .sort(
      (a, b) =>
        b.score - a.score ||
        a.entry.lexicalRank - b.entry.lexicalRank ||
        a.entry.semanticRank - b.entry.semanticRank,
    )
    .map(({ entry, score }) => ({
      item: entry.item,
      score,
      foundBy:
        entry.lexical !== undefined && entry.semantic !== undefined
          ? 'lexical+semantic'
          : entry.lexical !== undefined
            ? 'lexical'
            : 'semantic',
    }));
}
