// The issue-23 tool-retrieval set: a catalogue of real tools (name, description, inputSchema as
// published MCP servers advertise them in `tools/list`, see gather-catalogue.ts) and user-worded
// tasks, each labelled with the tool(s) that answer it. validateToolRetrievalSet checks the issue's
// thresholds (≥ 15 servers, ≥ 300 tools, ≥ 200 tasks) and that every label names a catalogued tool.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface CatalogueTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
}

export interface CatalogueServer {
  /** Short source id, lowercase [a-z0-9-], unique in the catalogue. */
  readonly id: string;
  readonly package: string;
  readonly registry: 'npm' | 'pypi';
  readonly version: string;
  /** `tools/list`: asked of the running server; `static`: read from the package's source. */
  readonly method: 'tools/list' | 'static';
  readonly tools: readonly CatalogueTool[];
}

export interface ToolCatalogue {
  /** ISO date (YYYY-MM-DD) of the run that gathered it. */
  readonly generated: string;
  readonly servers: readonly CatalogueServer[];
}

export interface ToolRef {
  readonly server: string;
  readonly tool: string;
}

export interface RetrievalTask {
  readonly id: string;
  /** Worded as a user asks an agent, not copied from a tool description. */
  readonly task: string;
  /** Every tool that genuinely answers the task (one or more). */
  readonly relevant: readonly ToolRef[];
}

export interface ToolRetrievalSet {
  readonly catalogue: ToolCatalogue;
  readonly tasks: readonly RetrievalTask[];
}

export const THRESHOLDS = { servers: 15, tools: 300, tasks: 200 } as const;

const HERE = dirname(fileURLToPath(import.meta.url));

/**
 * The source folder holding catalogue.json and tasks.json. tsc does not copy them into dist/, so
 * compiled code (dist/test/bench/tool-retrieval) reads them from the source tree four levels up.
 */
export const SET_DIR = existsSync(join(HERE, 'tool-retrieval-set.ts'))
  ? HERE
  : join(HERE, '..', '..', '..', '..', 'test', 'bench', 'tool-retrieval');

export function loadToolRetrievalSet(dir: string = SET_DIR): ToolRetrievalSet {
  const catalogue = JSON.parse(readFileSync(join(dir, 'catalogue.json'), 'utf8')) as ToolCatalogue;
  const { tasks } = JSON.parse(readFileSync(join(dir, 'tasks.json'), 'utf8')) as {
    tasks: RetrievalTask[];
  };
  return { catalogue, tasks };
}

/** The key a tool is found by across the whole catalogue: `server/tool`. */
export function toolKey(ref: ToolRef): string {
  return `${ref.server}/${ref.tool}`;
}

function duplicates(values: readonly string[]): string[] {
  const seen = new Set<string>();
  return [...new Set(values.filter((value) => seen.size === seen.add(value).size))];
}

function catalogueProblems(catalogue: ToolCatalogue): string[] {
  const problems: string[] = [];
  const ids = catalogue.servers.map((server) => server.id);
  for (const id of duplicates(ids)) problems.push(`server id ${id} is used twice`);
  for (const server of catalogue.servers) {
    if (!/^[a-z0-9-]+$/.test(server.id)) problems.push(`server id ${server.id} is not [a-z0-9-]`);
    if (server.tools.length === 0) problems.push(`server ${server.id} has no tools`);
    for (const name of duplicates(server.tools.map((tool) => tool.name)))
      problems.push(`server ${server.id} lists tool ${name} twice`);
    for (const tool of server.tools)
      if (typeof tool.inputSchema !== 'object' || tool.inputSchema === null)
        problems.push(`tool ${server.id}/${tool.name} has no inputSchema`);
  }
  const tools = catalogue.servers.reduce((sum, server) => sum + server.tools.length, 0);
  if (catalogue.servers.length < THRESHOLDS.servers)
    problems.push(`${catalogue.servers.length} servers, fewer than ${THRESHOLDS.servers}`);
  if (tools < THRESHOLDS.tools) problems.push(`${tools} tools, fewer than ${THRESHOLDS.tools}`);
  return problems;
}

function taskProblems(set: ToolRetrievalSet): string[] {
  const problems: string[] = [];
  const known = new Set(
    set.catalogue.servers.flatMap((server) =>
      server.tools.map((tool) => toolKey({ server: server.id, tool: tool.name })),
    ),
  );
  for (const id of duplicates(set.tasks.map((task) => task.id))) problems.push(`task id ${id} is used twice`);
  for (const text of duplicates(set.tasks.map((task) => task.task.toLowerCase())))
    problems.push(`task "${text}" is written twice`);
  for (const task of set.tasks) {
    if (task.task.trim() === '') problems.push(`task ${task.id} has no text`);
    if (task.relevant.length === 0) problems.push(`task ${task.id} has no relevant tool`);
    for (const key of duplicates(task.relevant.map(toolKey)))
      problems.push(`task ${task.id} lists ${key} twice`);
    for (const ref of task.relevant)
      if (!known.has(toolKey(ref)))
        problems.push(`task ${task.id} names ${toolKey(ref)}, not in the catalogue`);
  }
  if (set.tasks.length < THRESHOLDS.tasks)
    problems.push(`${set.tasks.length} tasks, fewer than ${THRESHOLDS.tasks}`);
  return problems;
}

/** Every problem found, worded for a test failure; an empty list means the set is usable. */
export function validateToolRetrievalSet(set: ToolRetrievalSet): string[] {
  return [...catalogueProblems(set.catalogue), ...taskProblems(set)];
}
