// Judges one /agent/query answer against the answer set: does a cited sentence lie inside an
// answering section of the current docs, is an answering section among the sources, and at which
// rank is the first answering document. Sections are found afresh in the files being benchmarked
// (answer-set.ts), so a doc edit moves the target with the text.
import { sectionSpan, type AnswerQuestion, type Span } from './answer-set.js';

/** The text with runs of whitespace collapsed to one space, and for each of its characters the
 * offset of the character it came from (the answerers quote sentences whitespace-collapsed). */
function squashed(text: string): { text: string; origin: number[] } {
  let out = '';
  const origin: number[] = [];
  let space = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i] as string;
    if (/\s/.test(c)) {
      space = out.length > 0;
      continue;
    }
    if (space) {
      out += ' ';
      origin.push(i - 1);
      space = false;
    }
    out += c;
    origin.push(i);
  }
  return { text: out, origin };
}

export interface DocText {
  readonly path: string;
  readonly text: string;
}

/** Where a quoted sentence sits in the file (every occurrence), as original offsets. */
export function sentenceSpans(file: string, sentence: string): Span[] {
  const { text, origin } = squashed(file);
  const needle = sentence.replace(/\s+/g, ' ').trim();
  const spans: Span[] = [];
  if (needle === '') return spans;
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1))
    spans.push({ start: origin[at] as number, end: (origin[at + needle.length - 1] as number) + 1 });
  return spans;
}

function overlap(a: Span, b: Span): number {
  return Math.max(0, Math.min(a.end, b.end) - Math.max(a.start, b.start));
}

/** A quoted sentence answers when at least half of it lies inside an answering section. */
export function sentenceInSection(file: string, sentence: string, section: Span): boolean {
  return sentenceSpans(file, sentence).some((s) => overlap(s, section) * 2 >= s.end - s.start);
}

export interface Cited {
  readonly path: string;
  readonly text: string;
}

export interface SourceChunk {
  readonly path: string;
  readonly charStart: number;
  readonly charEnd: number;
}

export interface Verdict {
  readonly cites: boolean;
  readonly firstCites: boolean;
  readonly sourceContains: boolean;
  /** 1-based rank of the first answering document among the distinct documents, or undefined. */
  readonly docRank: number | undefined;
}

export function judge(
  question: AnswerQuestion,
  files: ReadonlyMap<string, string>,
  citations: readonly Cited[],
  sources: readonly SourceChunk[],
  rankedDocs: readonly string[],
): Verdict {
  const sections = question.answers.flatMap((anchor) => {
    const file = files.get(anchor.doc);
    const span = file === undefined ? undefined : sectionSpan(file, anchor);
    return span === undefined || file === undefined ? [] : [{ path: anchor.doc, file, span }];
  });
  if (sections.length !== question.answers.length)
    throw new Error(`question ${question.id}: an answering section is no longer in the docs`);
  const answers = (c: Cited) =>
    sections.some((s) => s.path === c.path && sentenceInSection(s.file, c.text, s.span));
  const docs = new Set(sections.map((s) => s.path));
  const distinct = [...new Set(rankedDocs)];
  const rank = distinct.findIndex((d) => docs.has(d));
  return {
    cites: citations.some(answers),
    firstCites: citations[0] !== undefined && answers(citations[0]),
    sourceContains: sources.some((chunk) =>
      sections.some(
        (s) =>
          s.path === chunk.path &&
          // More than the chunker's overlap margin at a section's edge: the chunk holds part of it.
          overlap({ start: chunk.charStart, end: chunk.charEnd }, s.span) >=
            Math.min(100, s.span.end - s.span.start),
      ),
    ),
    docRank: rank < 0 ? undefined : rank + 1,
  };
}
