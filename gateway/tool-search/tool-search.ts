// Ranks a view of a workspace's tools against a task description (issue 23): by words always (BM25
// over the tools' names, sources, descriptions and parameters), and by meaning too when the workspace
// has an embeddings provider (the knowledge layer's), fused by the same rule as document search. The
// caller passes the view it may show (one key's tools), so nothing outside it is ranked or counted.
import type { CatalogTool } from '../discovery/index.js';
import {
  dotAt,
  embedQuery,
  unitVector,
  fuseRanked,
  type FoundBy,
  type RankFusion,
  type RetrievalFallback,
  type RetrievalMode,
  type WorkspaceEmbeddings,
} from '../knowledge/index.js';
import { rankLexically, compareNames } from './lexical-tool-ranker.js';
import { toolDocument, type ToolDocument } from './tool-document.js';
import { queryToolTerms } from './tool-terms.js';
import type { Logger } from '../telemetry/logger.js';
import { ToolVectors, type VectorClock } from './tool-vectors.js';

/** Why a tool search that asked for meaning answered by words: the knowledge layer's reasons (the
 * last embedding pass failed: a retry is on its way), or `indexing` while none of the view's tools
 * has a vector yet (the tools were discovered moments ago and their pass is running). */
export type ToolRetrievalFallback = RetrievalFallback | 'indexing';

export interface ToolRetrieval {
  readonly requested: RetrievalMode;
  readonly used: RetrievalMode;
  readonly fallbackReason: ToolRetrievalFallback | null;
  /** Tools of the view still waiting for a vector (they rank by words meanwhile). */
  readonly pendingVectors: number;
}

export interface FoundTool {
  readonly tool: CatalogTool;
  readonly score: number;
  readonly foundBy: FoundBy;
}

export interface ToolSearchResult {
  readonly tools: readonly FoundTool[];
  readonly retrieval: ToolRetrieval;
  /** Whether the workspace has an embeddings provider. */
  readonly embeddingsConfigured: boolean;
}

export interface ToolSearchRequest {
  readonly query: string;
  readonly limit: number;
  readonly mode?: RetrievalMode | undefined;
}

/** How tool search fuses words and meaning, chosen on the odd half of the tool-retrieval set (npm
 * run bench -- tools, all-MiniLM-L6-v2) among RRF and convex blends 0.3-0.7: 0.4 and 0.5 had the
 * best R@5 there (0.822), 0.4 the better R@1 of the two. Tools lean more on meaning than documents
 * (whose fixed blend was 0.6 before the adaptive rule): a tool's text is a name and a sentence or two, so a task rarely shares its
 * words. */
export const TOOL_FUSION: RankFusion = { kind: 'convex', lexicalWeight: 0.4 };

/** Candidates each list contributes to a fusion. */
function poolSize(limit: number): number {
  return Math.max(50, limit * 4);
}

function semanticRanking(
  documents: readonly ToolDocument[],
  vectors: readonly (Float32Array | undefined)[],
  query: Float32Array,
  limit: number,
): { document: ToolDocument; score: number }[] {
  // RangeError (all zeros, not finite, other dimensions) is the provider's answer being unusable.
  const unit = unitVector(query, { model: 'query', dimensions: query.length });
  const scored: { document: ToolDocument; score: number }[] = [];
  documents.forEach((document, i) => {
    const vector = vectors[i];
    if (vector === undefined) return;
    if (vector.length !== unit.length) throw new RangeError('query vector has other dimensions');
    scored.push({ document, score: dotAt(vector, 0, unit, 0, unit.length) });
  });
  return scored.sort((a, b) => b.score - a.score || compareNames(a.document, b.document)).slice(0, limit);
}

export interface ToolSearchOptions {
  readonly fusion?: RankFusion;
  readonly clock?: VectorClock;
  readonly logger?: Logger;
}

export class ToolSearch {
  readonly vectors: ToolVectors;
  private readonly fusion: RankFusion;

  constructor(
    private readonly embeddings: WorkspaceEmbeddings | undefined,
    options: ToolSearchOptions = {},
  ) {
    this.fusion = options.fusion ?? TOOL_FUSION;
    this.vectors = new ToolVectors(embeddings, options.clock, options.logger);
  }

  async rank(
    workspace: string,
    view: readonly CatalogTool[],
    request: ToolSearchRequest,
  ): Promise<ToolSearchResult> {
    const embeddingsConfigured = this.vectors.configured(workspace);
    const requested = request.mode ?? (embeddingsConfigured ? 'hybrid' : 'lexical');
    const documents = view.map(toolDocument);
    const terms = queryToolTerms(request.query);
    const pool = poolSize(request.limit);
    const lexical = () =>
      rankLexically(documents, terms, requested === 'lexical' ? request.limit : pool).map((s) => ({
        item: s.document,
        score: s.score,
      }));
    const byWords = (fallbackReason: ToolRetrievalFallback | null, pendingVectors: number) => ({
      tools: lexical()
        .slice(0, request.limit)
        .map((s) => ({ tool: s.item.tool, score: s.score, foundBy: 'lexical' as const })),
      retrieval: { requested, used: 'lexical' as const, fallbackReason, pendingVectors },
      embeddingsConfigured,
    });
    if (requested === 'lexical') return byWords(null, 0);
    if (!embeddingsConfigured) return byWords('not_configured', 0);
    // An empty view has nothing to compare a question with: no provider call.
    if (documents.length === 0)
      return {
        tools: [],
        retrieval: { requested, used: requested, fallbackReason: null, pendingVectors: 0 },
        embeddingsConfigured,
      };
    const known = this.vectors.view(workspace, documents);
    if (known.failure !== undefined && known.missing === documents.length)
      return byWords(known.failure, known.missing);
    if (known.missing === documents.length) return byWords('indexing', known.missing);
    const question = await embedQuery(this.embeddings, workspace, request.query);
    if (!question.ok) return byWords(question.reason, known.missing);
    let semantic: { document: ToolDocument; score: number }[];
    try {
      semantic = semanticRanking(documents, known.vectors, question.vector, pool);
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
      return byWords('malformed_response', known.missing);
    }
    const semanticList = semantic.map((s) => ({ item: s.document, score: s.score }));
    const fused =
      requested === 'semantic'
        ? semanticList.map((s) => ({ ...s, foundBy: 'semantic' as const }))
        : fuseRanked(lexical(), semanticList, (document) => document.tool.name, this.fusion);
    return {
      tools: fused
        .slice(0, request.limit)
        .map((s) => ({ tool: s.item.tool, score: s.score, foundBy: s.foundBy })),
      retrieval: { requested, used: requested, fallbackReason: null, pendingVectors: known.missing },
      embeddingsConfigured,
    };
  }
}
