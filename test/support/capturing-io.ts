// A CliIo that keeps what a command prints, for tests that run `runCli` in process against a
// running gateway (the key comes from `env`, as AGW_API_KEY would).
import type { CliIo } from '../../gateway/cli/cli-io.js';

export function capturingIo(env: Record<string, string>): { io: CliIo; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    out: (line) => out.push(line),
    err: (line) => err.push(line),
    now: () => new Date(),
    env,
  };
  return { io, out, err };
}
