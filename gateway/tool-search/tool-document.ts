// What the tool ranker knows of one tool (issue 23): its weighted term frequencies over the fields a
// task description may echo (the tool's name, its source, its description, its parameters' names and
// descriptions) and the one text its embedding is made of. Derived once per catalog tool object:
// catalog tools are replaced, never changed, when their source's list changes.
import type { CatalogTool } from '../discovery/index.js';
import { toolTerms } from './tool-terms.js';

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
  /** The text the tool's vector is made of. */
  readonly text: string;
}

/** Caps keep one huge schema or description from costing more than a normal tool. */
const MAX_DESCRIPTION_CHARS = 2_000;
const MAX_PARAMETERS = 50;
const MAX_EMBEDDED_CHARS = 1_500;

interface Parameter {
  readonly name: string;
  readonly description: string;
}

function parametersOf(tool: CatalogTool): Parameter[] {
  const properties = (tool.inputSchema as { properties?: unknown }).properties;
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties)) return [];
  return Object.entries(properties as Record<string, unknown>)
    .slice(0, MAX_PARAMETERS)
    .map(([name, schema]) => {
      const description =
        typeof schema === 'object' && schema !== null
          ? (schema as { description?: unknown }).description
          : undefined;
      return {
        name,
        description: typeof description === 'string' ? description.slice(0, MAX_DESCRIPTION_CHARS) : '',
      };
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
  const description = tool.description.slice(0, MAX_DESCRIPTION_CHARS);
  const parameters = parametersOf(tool);
  add(tool.upstreamName, FIELD_WEIGHTS.name);
  add(tool.source, FIELD_WEIGHTS.source);
  add(description, FIELD_WEIGHTS.description);
  for (const parameter of parameters) {
    add(parameter.name, FIELD_WEIGHTS.parameterName);
    add(parameter.description, FIELD_WEIGHTS.parameterDescription);
  }
  const parameterList = parameters.map((p) => p.name).join(', ');
  const text = `${tool.source} ${tool.upstreamName.replace(/[_\-.]+/g, ' ')}: ${description}${
    parameterList === '' ? '' : ` Parameters: ${parameterList}.`
  }`.slice(0, MAX_EMBEDDED_CHARS);
  const document: ToolDocument = { tool, frequencies, length, text };
  documents.set(tool, document);
  return document;
}
