// Lexical tool ranking (issue 23): BM25 over each tool's field-weighted term frequencies (BM25F with
// one saturation). The statistics (document count, average length, document frequencies) come from
// the tools passed in, which are the caller's view only: what a key cannot see neither ranks nor
// shifts a score, so scores say nothing about tools outside the view.
import type { ToolDocument } from './tool-document.js';

const K1 = 1.2;
const B = 0.75;

export interface ScoredTool {
  readonly document: ToolDocument;
  readonly score: number;
}

/** The documents matching at least one term, best first (ties by tool name), at most `limit`. */
export function rankLexically(
  documents: readonly ToolDocument[],
  terms: readonly string[],
  limit: number,
): ScoredTool[] {
  if (documents.length === 0 || terms.length === 0 || limit <= 0) return [];
  let totalLength = 0;
  const documentFrequency = new Map<string, number>(terms.map((term) => [term, 0]));
  for (const document of documents) {
    totalLength += document.length;
    for (const term of terms)
      if (document.frequencies.has(term)) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
  }
  const count = documents.length;
  const averageLength = totalLength / count || 1;
  const idf = new Map(
    terms.map((term) => {
      const n = documentFrequency.get(term) ?? 0;
      return [term, Math.log(1 + (count - n + 0.5) / (n + 0.5))] as const;
    }),
  );
  const scored: ScoredTool[] = [];
  for (const document of documents) {
    let score = 0;
    const norm = K1 * (1 - B + (B * document.length) / averageLength);
    for (const term of terms) {
      const frequency = document.frequencies.get(term);
      if (frequency === undefined) continue;
      score += ((idf.get(term) as number) * frequency * (K1 + 1)) / (frequency + norm);
    }
    if (score > 0) scored.push({ document, score });
  }
  return scored.sort((a, b) => b.score - a.score || compareNames(a.document, b.document)).slice(0, limit);
}

export function compareNames(a: ToolDocument, b: ToolDocument): number {
  return a.tool.name < b.tool.name ? -1 : a.tool.name > b.tool.name ? 1 : 0;
}
