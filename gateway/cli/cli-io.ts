// The CLI's view of the outside world, so commands are testable without a process.
export interface CliIo {
  out(line: string): void;
  err(line: string): void;
  now(): Date;
  readonly env: NodeJS.ProcessEnv;
}

export function processIo(): CliIo {
  return {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
    now: () => new Date(),
    env: process.env,
  };
}
