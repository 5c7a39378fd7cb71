// What the tool ranker knows of one tool (issue 23): its weighted term frequencies over the fields a
// task description may echo (the tool's name, its source, its description, its parameters' names and
// descriptions) and the one text its embedding is made of. Derived once per catalog tool object:
// catalog tools are replaced, never changed, when their source's list changes.
import { createHash } from 'node:crypto';
import type { CatalogTool } from '../discovery/index.js';
import { toolTerms, words } from './tool-terms.js';

/** How much a match in each field counts (BM25F field weights). The name says what a tool does in
 * the fewest words; a parameter's description is the most diluted. */
export const FIELD_WEIGHTS = {
  name: 3,
  source: 1.5,
  description: 1,
  parameterName: 1.5,
  parameterDescription: 0.5,
} as const;

export interface ToolDocument {
  readonly tool: CatalogTool;
  /** Term -> sum over fields of weight x occurrences. */
  readonly frequencies: ReadonlyMap<string, number>;
  /** Sum over fields of weight x field length in terms. */
  readonly length: number;
  /** The text the tool's vector is made of: source, name as words, the description's lead. */
  readonly text: string;
  /** SHA-256 of `text` (base64url): what the tool's vector is kept under. */
  readonly digest: string;
}

/** How much of a description is indexed by words: all of it, up to a bound far above what published
 * servers send (issue 37: of 50 published servers one sent 6,993 characters, and the only word of a
 * task sat at character 4,921, past the 2,000 that were indexed then). The bound only keeps a
 * hostile upstream's megabyte description from costing more than a normal tool; the parameters'
 * descriptions share a second budget of the same size. */
export const INDEXED_DESCRIPTION_CHARS = 65_536;
const MAX_PARAMETERS = 50;
/** How much of a description its vector is made of (cut at a word). Chosen by measurement on the
 * odd half of the tool-retrieval set (npm run bench -- tools): the name and the description's lead
 * beat the whole description with parameter names (hybrid R@5 0.822 vs 0.797; on the held-out
 * even half 0.782 vs 0.744); long descriptions list caveats and examples that pull the vector away
 * from what the tool does. */
export const EMBEDDED_DESCRIPTION_CHARS = 200;

function lead(description: string): string {
  if (description.length <= EMBEDDED_DESCRIPTION_CHARS) return description;
  const cut = description.slice(0, EMBEDDED_DESCRIPTION_CHARS);
  const space = cut.lastIndexOf(' ');
  return space > EMBEDDED_DESCRIPTION_CHARS / 2 ? cut.slice(0, space) : cut;
}

interface Parameter {
  readonly name: string;
  readonly description: string;
}

function parametersOf(tool: CatalogTool): Parameter[] {
  const properties = (tool.inputSchema as { properties?: unknown }).properties;
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties)) return [];
  let budget = INDEXED_DESCRIPTION_CHARS;
  return Object.entries(properties as Record<string, unknown>)
    .slice(0, MAX_PARAMETERS)
    .map(([name, schema]) => {
      const raw =
        typeof schema === 'object' && schema !== null
          ? (schema as { description?: unknown }).description
          : undefined;
      const description = typeof raw === 'string' ? raw.slice(0, budget) : '';
      budget -= description.length;
      return { name, description };
    });
}

const documents = new WeakMap<CatalogTool, ToolDocument>();

export function toolDocument(tool: CatalogTool): ToolDocument {
  const known = documents.get(tool);
  if (known !== undefined) return known;
  const frequencies = new Map<string, number>();
  let length = 0;
  const add = (text: string, weight: number) => {
    for (const term of toolTerms(text)) {
      frequencies.set(term, (frequencies.get(term) ?? 0) + weight);
      length += weight;
    }
  };
  const description = tool.description.slice(0, INDEXED_DESCRIPTION_CHARS);
  const parameters = parametersOf(tool);
  add(tool.upstreamName, FIELD_WEIGHTS.name);
  add(tool.source, FIELD_WEIGHTS.source);
  add(description, FIELD_WEIGHTS.description);
  for (const parameter of parameters) {
    add(parameter.name, FIELD_WEIGHTS.parameterName);
    add(parameter.description, FIELD_WEIGHTS.parameterDescription);
  }
  const text = `${tool.source} ${words(tool.upstreamName).join(' ')}: ${lead(description)}`;
  const digest = createHash('sha256').update(text).digest('base64url');
  const document: ToolDocument = { tool, frequencies, length, text, digest };
  documents.set(tool, document);
  return document;
}
