// Where the code is in a chunk of Markdown-ish text (issue 8 item 15): fenced blocks (``` or ~~~)
// and indented blocks (four spaces or a tab after a blank line). Code is indexed and searchable, but
// it ranks below prose that says the same words, and it is never quoted as an answer sentence.

/** Some line that could open a fence or an indented block; without one the text is all prose. */
const MAYBE_CODE = /^(\s{0,3}(```|~~~)| {4}|\t)/m;

/** The text with every code line removed (one newline kept per removed line). */
export function proseOnly(text: string): string {
  if (!MAYBE_CODE.test(text)) return text;
  const lines = text.split('\n');
  let fenced = false;
  let previousBlank = true;
  let indented = false;
  const out: string[] = [];
  for (const line of lines) {
    if (/^\s{0,3}(```|~~~)/.test(line)) {
      fenced = !fenced;
      out.push('');
      previousBlank = false;
      continue;
    }
    const blank = line.trim() === '';
    if (!fenced) indented = /^( {4}|\t)/.test(line) && (previousBlank || indented) && !blank;
    out.push(fenced || indented ? '' : line);
    previousBlank = blank;
  }
  return out.join('\n');
}

/** The share of non-blank characters of `text` that are prose (1 for text without code);
 * `prose` is `proseOnly(text)` when the caller has it already. */
export function proseShare(text: string, prose: string = proseOnly(text)): number {
  if (prose === text) return 1;
  const all = text.replace(/\s+/g, '').length;
  if (all === 0) return 1;
  return prose.replace(/\s+/g, '').length / all;
}
