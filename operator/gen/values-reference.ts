// The values reference of the Helm chart, generated from values.schema.json (descriptions, types)
// and values.yaml (defaults) into charts/agent-gateway/README.md between two markers. A test checks
// that the checked-in table is what this writes (`npm run gen:values`).
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

export const START = '<!-- values-reference:start (npm run gen:values) -->';
export const END = '<!-- values-reference:end -->';

interface SchemaNode {
  readonly type?: string | readonly string[];
  readonly description?: string;
  readonly enum?: readonly unknown[];
  readonly properties?: Readonly<Record<string, SchemaNode>>;
}

function typeOf(node: SchemaNode): string {
  const type = Array.isArray(node.type) ? node.type.join(' or ') : (node.type ?? 'any');
  return node.enum === undefined ? String(type) : node.enum.map((v) => `\`${String(v)}\``).join(', ');
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function defaultAt(values: unknown, path: readonly string[]): unknown {
  let current = values;
  for (const part of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/** One row per leaf (a value with no declared sub-properties), in schema order. */
export function valuesTable(schema: SchemaNode, values: unknown): string {
  const rows: string[] = ['| Key | Type | Default | Description |', '|---|---|---|---|'];
  const walk = (node: SchemaNode, path: string[]) => {
    if (node.properties !== undefined && Object.keys(node.properties).length > 0) {
      for (const [name, child] of Object.entries(node.properties)) walk(child, [...path, name]);
      return;
    }
    const value = defaultAt(values, path);
    const shown = value === undefined ? '' : `\`${JSON.stringify(value)}\``;
    rows.push(
      `| \`${path.join('.')}\` | ${typeOf(node)} | ${cell(shown)} | ${cell(node.description ?? '')} |`,
    );
  };
  walk(schema, []);
  return `${rows.join('\n')}\n`;
}

export function renderReadme(readme: string, chartDir: string): string {
  const schema = JSON.parse(readFileSync(`${chartDir}/values.schema.json`, 'utf8')) as SchemaNode;
  const values = parse(readFileSync(`${chartDir}/values.yaml`, 'utf8')) as unknown;
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`the chart README needs the markers ${START} and ${END}`);
  return `${readme.slice(0, start + START.length)}\n\n${valuesTable(schema, values)}\n${readme.slice(end)}`;
}
