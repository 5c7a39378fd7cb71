// A chunk's quotable sentences, each with the label of the section it sits in (issue 39 goal 3):
// the nearest Markdown heading above it in the chunk and the bold lead of its list item or paragraph
// ("- **Time-outs and breakers**: …"). Reference docs label their sections; a sentence under a label
// that names the question's subject is likely the answer even when it words things differently.
// Fenced and indented code is dropped first (code is never quoted, issue 8.15).
import { proseOnly } from './code-spans.js';

export interface ContextSentence {
  readonly text: string;
  /** The heading and bold lead over the sentence, space-separated ('' when none). */
  readonly context: string;
}

const HEADING_LINE = /^\s{0,3}#{1,6}\s+(.*)$/;
const ITEM_START = /^\s*([-*+]|\d+\.)\s/;
const BOLD_LEAD = /^\s*(?:(?:[-*+]|\d+\.)\s+)?\*\*([^*\n]{1,120})\*\*/;

/** The longest sentence quoted whole; a longer one is quoted clause by clause (see `clauses`). */
const MAX_SENTENCE_CHARS = 600;

function isSentence(s: string): boolean {
  // Fragments (a cut-off tail, a table cell) are not sentences worth citing.
  return (
    s.length >= 20 &&
    s.length <= MAX_SENTENCE_CHARS &&
    s.split(' ').length >= 6 &&
    /^[\p{L}\p{N}"'*`(-]/u.test(s)
  );
}

/** A sentence too long to quote whole, split after its semicolons. Reference docs pack a whole
 * behaviour into one list item ("**Shutdown** (SIGTERM …): `/readyz` answers 503 at once …; for
 * `drainDelayMs` …; then …"), and dropping it dropped the answer (issue 39's answer set: hybrid
 * train cites 0.77 -> 0.81). Each clause is still verbatim and still has to pass as a sentence. */
function clauses(sentence: string): string[] {
  return sentence.length > MAX_SENTENCE_CHARS ? sentence.split(/(?<=;)\s+/) : [sentence];
}

/** Blocks of prose: paragraphs, list items and heading lines apart, each with its label. */
function blocks(text: string): { text: string; context: string }[] {
  const out: { text: string; context: string }[] = [];
  let heading = '';
  let current: string[] = [];
  const flush = () => {
    if (current.length === 0) return;
    const block = current.join('\n');
    const lead = BOLD_LEAD.exec(block)?.[1] ?? '';
    out.push({ text: block, context: `${heading} ${lead}`.trim() });
    current = [];
  };
  for (const line of proseOnly(text).split('\n')) {
    const headingMatch = HEADING_LINE.exec(line);
    if (headingMatch !== null) {
      flush();
      heading = (headingMatch[1] as string).trim();
      // The heading line is a block of its own (it is rarely a sentence: the filter decides).
      out.push({ text: line, context: heading });
      continue;
    }
    if (line.trim() === '' || ITEM_START.test(line)) flush();
    if (line.trim() !== '') current.push(line);
  }
  flush();
  return out;
}

/** Whitespace after . ! or ? (and a closing quote or bracket), unless the full stop ends an
 * abbreviation that introduces more of the same sentence. */
const SENTENCE_END = /(?<=[.!?]["')\]]?)(?<!(?:^|[^\p{L}])(?:e\.g|i\.e|vs|cf|incl|approx|resp)\.)\s+/iu;

export function sentencesWithContext(text: string): ContextSentence[] {
  // A sentence ends at . ! or ? followed by whitespace, so "2.5 GB" inside a sentence does not split it;
  // nor does an abbreviation that never ends one ("e.g. `HTTP 503`" is one sentence, not two fragments).
  return blocks(text).flatMap(({ text: block, context }) =>
    block
      .replace(/\s+/g, ' ')
      .trim()
      .split(SENTENCE_END)
      .map((s) => s.trim())
      .flatMap(clauses)
      .filter(isSentence)
      .map((s) => ({ text: s, context })),
  );
}
