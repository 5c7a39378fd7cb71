// The usage hint header (spec §4.1 rule 3, D9): result count and the estimated tokens of the exact
// body sent, counted with gpt-tokenizer's o200k_base. Only when `knowledge.usageHints` is on.
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';

export const USAGE_HEADER = 'x-service-usage';

export function usageHeaderValue(results: number, payload: string): string {
  return `results=${results}; est_tokens=${countTokens(payload)}; tokenizer=o200k_base`;
}
