// A capturing CliIo and a runner, shared by the CLI tests.
import type { CliIo } from '../../../gateway/cli/cli-io.js';
import { runCli } from '../../../gateway/cli/cli-main.js';

export const NOW = new Date('2026-03-01T10:00:00.000Z');

export interface CliRun {
  readonly code: number;
  readonly out: string[];
  readonly err: string[];
}

export async function cli(...argv: string[]): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { out: (line) => out.push(line), err: (line) => err.push(line), now: () => NOW, env: {} };
  const code = await runCli(argv, io);
  return { code, out, err };
}
