// How much a candidate answer sentence says about the question's terms (issue 39 goal 3), beyond
// counting them: a term most candidate sentences share ("gateway" in the gateway's own docs) weighs
// less than one few of them have (inverse sentence frequency over the candidates), and a term that
// appears only inside quotation marks weighs nothing — a sentence that quotes a question mentions
// it, it does not answer it. Inline code counts in full: in reference docs the setting named in
// code is often the answer (a half weight for code lost answers on the answer set). A term in the
// label of the sentence's section (its heading, its list item's bold lead) adds half its weight.
import { termPrefix } from './query-terms.js';

const WORD = /[\p{L}\p{N}_]+/gu;
/** What a term in the section's label adds, against 1 for the term in the sentence itself. */
const LABEL_SHARE = 0.5;

export interface SentenceWords {
  /** Every word of the sentence. */
  readonly all: Set<string>;
  /** The words outside quotation marks. */
  readonly plain: Set<string>;
  /** The words of the section's label (its heading, its list item's bold lead). */
  readonly label: Set<string>;
}

const QUOTED = /"[^"\n]{1,300}"|“[^”\n]{1,300}”/gu;

/** The pieces of a camelCase or PascalCase identifier ("readOnlyHint": read, Only, Hint). */
const CAMEL_PART = /\p{Lu}?\p{Ll}+|\p{Lu}+(?!\p{Ll})|\p{N}+/gu;

/** The text's words, lower-cased, and the pieces of each camelCase identifier besides: reference
 * docs name things in code case (a setting `readOnlyHint`, an alert `AgentGatewayConfigReloadFailed`
 * as a heading), and a question asks in plain words ("read-only", "config reload"). */
function wordSet(text: string): Set<string> {
  const words = new Set<string>();
  for (const word of text.match(WORD) ?? []) {
    words.add(word.toLowerCase());
    const parts = word.match(CAMEL_PART) ?? [];
    if (parts.length > 1) for (const part of parts) words.add(part.toLowerCase());
  }
  return words;
}

export function sentenceWords(text: string, label = ''): SentenceWords {
  const withoutQuotes = text.replace(QUOTED, ' ');
  return {
    all: wordSet(text),
    plain: wordSet(withoutQuotes),
    label: wordSet(label),
  };
}

function has(words: Set<string>, term: string): boolean {
  const stem = termPrefix(term);
  for (const word of words) if (word.startsWith(stem)) return true;
  return false;
}

/** Terms the sentence holds anywhere (quotes and code included): the qualifying count. */
export function coveredCount(words: SentenceWords, terms: readonly string[]): number {
  return terms.filter((term) => has(words.all, term)).length;
}

/** Each term's weight: √ln((n + 1) / (df + 0.5)) over the n candidate sentences. */
export function termWeights(sentences: readonly SentenceWords[], terms: readonly string[]): number[] {
  const n = sentences.length;
  return terms.map((term) => {
    const df = sentences.filter((s) => has(s.all, term)).length;
    // The square root tempers it: over a few dozen sentences a term in one of them is not ten times
    // the evidence of a term in half of them (measured on the answer set's train split).
    return Math.sqrt(Math.max(0, Math.log((n + 1) / (df + 0.5))));
  });
}

/** The weighted share of the terms the sentence holds outside quotation marks, plus half the
 * weighted share its section's label holds (0 to 1.5). */
export function weightedCoverage(
  words: SentenceWords,
  terms: readonly string[],
  weights: readonly number[],
): number {
  let total = 0;
  let got = 0;
  let label = 0;
  terms.forEach((term, index) => {
    const weight = weights[index] ?? 0;
    total += weight;
    if (has(words.plain, term)) got += weight;
    if (has(words.label, term)) label += weight;
  });
  return total <= 0 ? 0 : (got + LABEL_SHARE * label) / total;
}
