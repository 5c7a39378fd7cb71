// Words of tool names, descriptions and task texts as the tool ranker compares them (issue 23):
// identifiers split on `_`, `-`, `.`, `/` and camelCase (`createPullRequest` -> create pull request),
// lower-cased, stop words dropped, Porter-stemmed so "requests", "requested" and "request" meet.
import { stemmer } from 'stemmer';
import { STOP_WORDS } from '../knowledge/index.js';

/** The knowledge layer's stop words (function words and the verbs questions are wrapped in) and
 * the ways a task asks for something ("I need to…", "let me…"). */
const TOOL_STOP_WORDS: ReadonlySet<string> = new Set([...STOP_WORDS, 'need', 'let']);

/** At most this many terms of one task text are compared. */
export const MAX_QUERY_TERMS = 32;

/** Splits identifiers and prose into lower-case words (camelCase and acronyms kept apart). */
export function words(text: string): string[] {
  const spaced = text
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2');
  return spaced.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** The stemmed terms of a text, repeats kept (term frequencies count them). Single characters (the
 * `s` of "what's", list markers) say nothing about a tool. */
export function toolTerms(text: string): string[] {
  const terms: string[] = [];
  for (const word of words(text)) {
    if (TOOL_STOP_WORDS.has(word) || word.length < 2) continue;
    terms.push(stemmer(word));
  }
  return terms;
}

/** The distinct terms of a task text, at most MAX_QUERY_TERMS; only stop words: those words. */
export function queryToolTerms(text: string): string[] {
  const terms = [...new Set(toolTerms(text))].slice(0, MAX_QUERY_TERMS);
  if (terms.length > 0) return terms;
  return [...new Set(words(text).map((word) => stemmer(word)))].slice(0, MAX_QUERY_TERMS);
}
