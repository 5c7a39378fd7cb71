// Splits a document body into overlapping chunks (knowledge doc §7): ~1,200 characters, split on
// paragraphs, then sentences, then a hard cut, with ~150 characters of overlap; each chunk keeps its
// character offsets in the body, and, in a Markdown body, the heading path in effect where it starts.
import { headingPaths } from './chunk-headings.js';
import type { ChunkInput } from './knowledge-store.js';

export interface ChunkOptions {
  readonly targetChars: number;
  readonly overlapChars: number;
}

export const DEFAULT_CHUNKING: ChunkOptions = { targetChars: 1200, overlapChars: 150 };

/** Candidate cut points, best first: paragraph breaks, sentence ends, then spaces. */
function cutPoint(text: string, start: number, limit: number): number {
  const window = text.slice(start, limit);
  const minimum = Math.floor(window.length * 0.5);
  for (const pattern of [/\n\s*\n/g, /[.!?]["')\]]?\s/g, /\s/g]) {
    let best = -1;
    for (const match of window.matchAll(pattern)) {
      const end = (match.index ?? 0) + match[0].length;
      if (end >= minimum) best = end;
    }
    if (best > 0) return start + best;
  }
  return limit;
}

export function chunkText(body: string, options: ChunkOptions = DEFAULT_CHUNKING): ChunkInput[] {
  const text = body.trim().length === 0 ? '' : body;
  if (text === '') return [];
  const chunks: ChunkInput[] = [];
  let start = 0;
  while (start < text.length) {
    const limit = Math.min(text.length, start + options.targetChars);
    const end = limit === text.length ? limit : cutPoint(text, start, limit);
    const piece = text.slice(start, end).trim();
    if (piece !== '') chunks.push({ chunkNo: chunks.length, text: piece, charStart: start, charEnd: end });
    if (end >= text.length) break;
    // Step back for overlap, but always move forward, and start on a word boundary.
    let next = Math.max(end - options.overlapChars, start + 1);
    const space = text.indexOf(' ', next);
    if (space > 0 && space < end) next = space + 1;
    start = next;
  }
  // A chunk starts at its trimmed text: a heading line it opens with is its own, not its context.
  const paths = headingPaths(
    text,
    chunks.map((chunk) => text.indexOf(chunk.text, chunk.charStart)),
  );
  return chunks.map((chunk, index) => {
    const heading = paths[index];
    return heading === undefined ? chunk : { ...chunk, heading };
  });
}
