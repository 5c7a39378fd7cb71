// Where the code is in a chunk of Markdown-ish text (issue 8 item 15): fenced blocks (``` or ~~~)
// and indented blocks (four spaces or a tab after a blank line). Code is indexed and searchable, but
// it ranks below prose that says the same words, and it is never quoted as an answer sentence.

/** The text with every code line removed (one newline kept per removed line). */
export function proseOnly(text: string): string {
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

/** The share of non-blank characters of `text` that are prose (1 for text without code). */
export function proseShare(text: string): number {
  const all = text.replace(/\s+/g, '').length;
  if (all === 0) return 1;
  return proseOnly(text).replace(/\s+/g, '').length / all;
}
