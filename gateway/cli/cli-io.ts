// The CLI's view of the outside world, so commands are testable without a process.
export interface CliIo {
  out(line: string): void;
  err(line: string): void;
  now(): Date;
  readonly env: NodeJS.ProcessEnv;
  /** Standard input as text (secrets are read from here, never from argv). */
  readStdin?(): Promise<string>;
}

export function processIo(): CliIo {
  return {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
    now: () => new Date(),
    env: process.env,
    async readStdin() {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
  };
}
