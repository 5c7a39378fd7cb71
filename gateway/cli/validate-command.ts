// `agent-gateway validate-config FILE`: exit 0, or every problem with its path and exit 1.
import { COMMAND_USAGE } from './usage.js';
import { readFile } from 'node:fs/promises';
import { formatProblems, parseConfigText } from '../config/index.js';
import type { CliIo } from './cli-io.js';

export async function validateCommand(args: string[], io: CliIo): Promise<number> {
  const [file, ...rest] = args;
  if (file === undefined || rest.length > 0) {
    io.err(COMMAND_USAGE['validate-config']);
    return 2;
  }
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    io.err(`${file}: cannot read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    return 1;
  }
  const result = parseConfigText(text);
  if (!result.ok) {
    io.err(`${file}: ${result.problems.length} problem${result.problems.length === 1 ? '' : 's'}:`);
    io.err(formatProblems(result.problems));
    return 1;
  }
  const workspaces = result.config.workspaces;
  const keys = workspaces.reduce((n, w) => n + w.keys.length, 0);
  const sources = workspaces.reduce((n, w) => n + w.mcpSources.length, 0);
  const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
  io.err(
    `${file}: valid (${count(workspaces.length, 'workspace')}, ${count(sources, 'MCP source')}, ${count(keys, 'key')})`,
  );
  return 0;
}
