// Fuses the lexical and the semantic candidate lists of one search into one ranking (issues 22, 39).
// Three rules, so the benchmark can compare them in one run: reciprocal rank fusion (ranks only), a
// convex blend of min-max-normalised scores (tool search's rule), and the adaptive rule document
// search uses (adaptive-fusion.ts), which weighs the semantic list per query by how far it can be
// trusted. Which one search uses was decided by measurement: DEFAULT_FUSION.
import {
  adaptiveScores,
  type FoundBy,
  type FusedHit,
  type QueryShape,
  type SemanticCandidate,
} from './adaptive-fusion.js';

export type { FoundBy, FusedHit, SemanticCandidate } from './adaptive-fusion.js';
import type { SearchHit } from './knowledge-store.js';

/** The rules that need nothing but the two ranked lists (tool search uses these). */
export type RankFusion =
  { readonly kind: 'rrf'; readonly k: number } | { readonly kind: 'convex'; readonly lexicalWeight: number };

export type Fusion = RankFusion | { readonly kind: 'adaptive' };

/** The rule document search uses: adaptive-fusion.ts says how it was chosen and what it measured. */
export const DEFAULT_FUSION: Fusion = { kind: 'adaptive' };

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

/** One ranking of both lists' chunks, best first; ties by lexical rank, then semantic rank. A
 * chunk's score depends on the two lists only, never on how many results are shown afterwards. */
export function fuse(
  lexical: readonly SearchHit[],
  semantic: readonly SemanticCandidate[],
  fusion: Fusion = DEFAULT_FUSION,
  shape: QueryShape = { terms: [], words: 0 },
): FusedHit[] {
  if (fusion.kind === 'adaptive') return adaptiveScores(lexical, semantic, shape);
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
  fusion: RankFusion,
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
