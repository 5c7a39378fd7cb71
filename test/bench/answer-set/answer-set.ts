// The answer set over this project's own docs (issue 39 goal 3): questions, each with the sections
// that answer it, named by a Markdown heading or a distinctive phrase rather than by line numbers, so
// a doc edit elsewhere does not move the target. `sectionSpan` finds a section's character span in
// the current file; the judge compares cited sentences and chunk offsets against that span.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A section that answers: a heading (the text after the #s) or a phrase inside the section. */
export type Anchor =
  { readonly doc: string; readonly heading: string } | { readonly doc: string; readonly phrase: string };

export interface AnswerQuestion {
  readonly id: string;
  readonly question: string;
  readonly split: 'train' | 'held-out';
  readonly answers: readonly Anchor[];
}

export interface Span {
  readonly start: number;
  readonly end: number;
}

export function loadAnswerSet(root: string): AnswerQuestion[] {
  const path = join(root, 'test/bench/answer-set/questions.json');
  return (JSON.parse(readFileSync(path, 'utf8')) as { questions: AnswerQuestion[] }).questions;
}

const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;

/** From the heading line to the next heading of the same or a higher level (or the file's end). */
function headingSpan(text: string, heading: string): Span | undefined {
  const lines = text.split('\n');
  let offset = 0;
  let start: number | undefined;
  let level = 0;
  for (const line of lines) {
    const match = HEADING.exec(line);
    if (match !== null) {
      const depth = (match[1] as string).length;
      // A heading may carry an HTML anchor (`<a id="caller-token"></a>`): compare its text only.
      const title = (match[2] as string).replace(/<a [^>]*><\/a>/g, '').trim();
      if (start !== undefined && depth <= level) return { start, end: offset };
      if (start === undefined && title === heading) {
        start = offset;
        level = depth;
      }
    }
    offset += line.length + 1;
  }
  return start === undefined ? undefined : { start, end: text.length };
}

/** The block holding the phrase: its table row, its list item (with its continuation lines), or
 * its paragraph. A phrase found twice is ambiguous and finds nothing, so the test catches it. */
function phraseSpan(text: string, phrase: string): Span | undefined {
  const at = text.indexOf(phrase);
  if (at < 0 || text.indexOf(phrase, at + 1) >= 0) return undefined;
  const lineStart = text.lastIndexOf('\n', at) + 1;
  const lineEnd = text.indexOf('\n', at);
  const line = text.slice(lineStart, lineEnd < 0 ? text.length : lineEnd);
  if (line.trimStart().startsWith('|')) return { start: lineStart, end: lineEnd < 0 ? text.length : lineEnd };
  // Walk up to the block's first line: a list item's marker, a blank line or a heading above.
  let start = lineStart;
  while (start > 0) {
    const current = text.slice(
      start,
      text.indexOf('\n', start) < 0 ? text.length : text.indexOf('\n', start),
    );
    if (/^\s*([-*+]|\d+\.)\s/.test(current)) break;
    const previousStart = text.lastIndexOf('\n', start - 2) + 1;
    const previous = text.slice(previousStart, start - 1);
    if (previous.trim() === '' || HEADING.test(previous) || previous.trimStart().startsWith('|')) break;
    start = previousStart;
  }
  // Walk down to the block's end: a blank line, a heading, or the next list item.
  let end = lineEnd < 0 ? text.length : lineEnd;
  while (end < text.length) {
    const nextEnd = text.indexOf('\n', end + 1) < 0 ? text.length : text.indexOf('\n', end + 1);
    const next = text.slice(end + 1, nextEnd);
    if (next.trim() === '' || HEADING.test(next) || /^\s*([-*+]|\d+\.)\s/.test(next)) break;
    end = nextEnd;
  }
  return { start, end };
}

export function sectionSpan(text: string, anchor: Anchor): Span | undefined {
  return 'heading' in anchor ? headingSpan(text, anchor.heading) : phraseSpan(text, anchor.phrase);
}

/** Whitespace collapsed, as the answerers quote sentences. */
export function squash(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
