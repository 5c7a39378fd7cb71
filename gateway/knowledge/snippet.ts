// Bounded snippets (spec §2.2, knowledge doc §7): the window of a chunk with the densest query-term
// hits, cut at word boundaries to at most `maxChars` characters, with "…" where text was cut.
const ELLIPSIS = '…';

function stemPrefix(term: string): string {
  return term.length > 5 ? term.slice(0, term.length - 2) : term;
}

export function makeSnippet(text: string, terms: readonly string[], maxChars: number): string {
  const clean = text.replace(/\s+/g, ' ').trim();
  if (clean.length <= maxChars) return clean;
  // Positions are found case-insensitively in the text itself (lower-casing can change lengths).
  const hits: number[] = [];
  for (const term of terms) {
    const needle = new RegExp(stemPrefix(term).replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'giu');
    for (const match of clean.matchAll(needle)) hits.push(match.index);
  }
  hits.sort((a, b) => a - b);
  const budget = maxChars - 2 * ELLIPSIS.length;
  let bestStart = 0;
  let bestCount = -1;
  for (let i = 0; i < hits.length; i += 1) {
    const start = Math.max(0, (hits[i] as number) - Math.floor(budget / 4));
    const count = hits.filter((h) => h >= start && h < start + budget).length;
    if (count > bestCount) {
      bestCount = count;
      bestStart = start;
    }
  }
  let start = Math.min(bestStart, Math.max(0, clean.length - budget));
  if (start > 0) {
    const space = clean.indexOf(' ', start);
    if (space >= 0 && space - start < 20) start = space + 1;
  }
  let end = Math.min(clean.length, start + budget);
  if (end < clean.length) {
    const space = clean.lastIndexOf(' ', end);
    if (space > start + budget / 2) end = space;
  }
  const prefix = start > 0 ? ELLIPSIS : '';
  const suffix = end < clean.length ? ELLIPSIS : '';
  return `${prefix}${clean.slice(start, end).trim()}${suffix}`;
}
