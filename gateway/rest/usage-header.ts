// The usage hint header (spec §4.1 rule 3, D9): result count and the estimated tokens of the exact
// body sent, counted with gpt-tokenizer's o200k_base. Only when `knowledge.usageHints` is on. The
// o200k tables cost ~70 MiB of memory, so they load only when a config turns usage hints on
// (issue 26): `loadTokenizer` at start and on reload, and the first hinted reply waits for it.

export const USAGE_HEADER = 'x-service-usage';

type TokenCounter = (text: string) => number;

let counter: TokenCounter | undefined;
let loading: Promise<TokenCounter> | undefined;

/** Loads the tokenizer once (later calls share the first load). */
export function loadTokenizer(): Promise<TokenCounter> {
  loading ??= import('gpt-tokenizer/encoding/o200k_base').then((module) => {
    counter = module.countTokens;
    return module.countTokens;
  });
  return loading;
}

/** The header value, at once when the tokenizer is loaded, else after it loads. */
export function usageHeaderValue(results: number, payload: string): string | Promise<string> {
  if (counter !== undefined) return headerText(results, counter(payload));
  return loadTokenizer().then((count) => headerText(results, count(payload)));
}

function headerText(results: number, tokens: number): string {
  return `results=${results}; est_tokens=${tokens}; tokenizer=o200k_base`;
}
