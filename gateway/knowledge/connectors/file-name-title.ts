// Whether a file's name says anything about its content (issue 39): a file with no heading or title
// of its own is titled by its name only when the name carries a word. An id-like name (`d004795.txt`,
// `0001.txt`, a hex digest or a UUID) would otherwise stand in front of every chunk's embedding and
// take the title's weight in lexical search while meaning nothing; such a file gets an empty title
// and is shown by its path (the document's url), which it always has.
import { basename, extname } from 'node:path';

/** Long runs of hex digits with at least one digit among them read as ids, not words. */
const HEX_ID_MIN = 8;

function isHexId(text: string): boolean {
  return text.length >= HEX_ID_MIN && /^[0-9a-f]+$/i.test(text) && /[0-9]/.test(text);
}

/** A token reads as a word when it has at least two letters and no more digits than letters
 * (`ls`, `alarm`, `libfoo`, `mp3`… not `d004795`, `img0001`, `v2`; nor `x11`, the price of
 * a simple rule), and is no hex id. */
function isWord(token: string): boolean {
  const letters = token.match(/\p{L}/gu)?.length ?? 0;
  const digits = token.match(/\p{N}/gu)?.length ?? 0;
  return letters >= 2 && letters >= digits && !isHexId(token);
}

/** True when the file name (the last path segment, extension aside) holds a word. A name with no
 * extension is read whole; a dot file (`.bashrc`) is its name. */
export function isMeaningfulFileName(path: string): boolean {
  const name = basename(path);
  const extension = extname(name);
  const stem = extension === '' || extension === name ? name : name.slice(0, -extension.length);
  // A UUID or digest cut by separators is still one id: judged with the separators taken out.
  if (isHexId(stem.replace(/[-_.\s]/g, ''))) return false;
  return stem.split(/[^\p{L}\p{N}]+/u).some(isWord);
}

/** The title a file falls back to when its content names none: its name, or '' when meaningless. */
export function fileNameTitle(path: string): string {
  return isMeaningfulFileName(path) ? basename(path) : '';
}
