// The Markdown heading path in effect where each chunk starts (issue 39 goal 3): a chunk cut from the
// middle of a section carries no heading of its own, yet its section's name is often what a question
// asks about. ATX (`## Name`) and setext (`Name` over `===`/`---`) headings count when they open the
// body or follow a blank line; `#` lines inside fenced code do not. A body with no heading line gets no path at all, so plain text (man pages,
// package descriptions) is indexed exactly as before.

export const HEADING_SEPARATOR = ' › ';

interface Heading {
  /** Offset of the heading's first line in the body. */
  readonly at: number;
  readonly level: number;
  readonly text: string;
}

const ATX = /^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;
/** A line that can be a setext heading's text: not a list item, quote, table row or indented code. */
const SETEXT_TEXT = /^ {0,3}[^\s>|*+#-]/;

/** Inline Markdown a heading's words are written with (`code`, **bold**, [link](url)) taken off. */
function plainHeading(text: string): string {
  return text
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*_]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Every heading of a Markdown body, in order, with fenced code skipped. */
export function markdownHeadings(body: string): Heading[] {
  const headings: Heading[] = [];
  let fence: string | undefined;
  let offset = 0;
  let previous: { at: number; line: string; blankBefore: boolean } | undefined;
  let blank = true;
  for (const line of body.split('\n')) {
    const at = offset;
    offset += line.length + 1;
    const fenceMatch = FENCE.exec(line);
    if (fence !== undefined) {
      // A fence closes with a run of the same character at least as long as the one that opened it.
      if (
        fenceMatch !== null &&
        fenceMatch[1]?.[0] === fence[0] &&
        (fenceMatch[1]?.length ?? 0) >= fence.length
      )
        fence = undefined;
      previous = undefined;
      continue;
    }
    if (fenceMatch !== null) {
      fence = fenceMatch[1];
      previous = undefined;
      blank = false;
      continue;
    }
    // A heading line counts only where written Markdown puts one: first in the body or after a blank
    // line. Plain text has `#` lines too (a C synopsis's "# include <asm/ldt.h>" in man pages).
    const atx = blank ? ATX.exec(line) : null;
    const setext = SETEXT.exec(line);
    if (atx !== null) {
      const text = plainHeading(atx[2] as string);
      if (text !== '') headings.push({ at, level: (atx[1] as string).length, text });
      previous = undefined;
    } else if (setext !== null && previous !== undefined && previous.blankBefore) {
      const text = plainHeading(previous.line);
      if (text !== '') headings.push({ at: previous.at, level: setext[1]?.[0] === '=' ? 1 : 2, text });
      previous = undefined;
    } else {
      previous = line.trim() !== '' && SETEXT_TEXT.test(line) ? { at, line, blankBefore: blank } : undefined;
    }
    blank = line.trim() === '';
  }
  return headings;
}

/** For each start offset (ascending or not), the heading path in effect just before it: the headings
 * that begin before it, each replacing any of its level or deeper. `undefined` where none is. */
export function headingPaths(body: string, starts: readonly number[]): (string | undefined)[] {
  const headings = markdownHeadings(body);
  if (headings.length === 0) return starts.map(() => undefined);
  return starts.map((start) => {
    const stack: Heading[] = [];
    for (const heading of headings) {
      if (heading.at >= start) break;
      while (stack.length > 0 && (stack[stack.length - 1] as Heading).level >= heading.level) stack.pop();
      stack.push(heading);
    }
    return stack.length === 0 ? undefined : stack.map((h) => h.text).join(HEADING_SEPARATOR);
  });
}

/** What a chunk's title is indexed as: its document's title, then the segments of its heading path
 * that say something the title does not (a segment whose words are all in the title, such as the
 * page's own `#` heading, is left out). Both stores index this, so they rank alike; results still
 * show the document's own title. A repeated title word would lift every chunk of the page above
 * the one that answers in PostgreSQL, whose ts_rank has no inverse document frequency and counts
 * each occurrence (the README's "revoke an API key" fell below a chunk of docs/api.md). */
export function indexedTitle(title: string, heading: string | undefined): string {
  if (heading === undefined || heading === '') return title;
  const titleWords = new Set(title.toLowerCase().match(WORD) ?? []);
  const rest = heading
    .split(HEADING_SEPARATOR)
    .filter((segment) => !(segment.toLowerCase().match(WORD) ?? []).every((word) => titleWords.has(word)));
  return rest.length === 0 ? title : `${title} ${rest.join(HEADING_SEPARATOR)}`;
}

const WORD = /[\p{L}\p{N}_]+/gu;
