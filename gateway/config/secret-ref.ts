// Secret references (issue: secrets in config are references, never inline values). A reference
// names an environment variable or a file; the value is read at use time and never logged.
import { readFileSync } from 'node:fs';
import { z } from 'zod';

export const SecretRefSchema = z.union(
  [
    z.strictObject({
      env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name'),
    }),
    z.strictObject({ file: z.string().min(1, 'must be a file path') }),
  ],
  {
    error:
      'must be a secret reference: { env: NAME } or { file: PATH } (inline secret values are not accepted)',
  },
);

export type SecretRef = z.infer<typeof SecretRefSchema>;

/** Where secret values come from; the process environment and the file system in production. */
export interface SecretReader {
  readEnv(name: string): string | undefined;
  readFile(path: string): string;
}

export function processSecretReader(env: NodeJS.ProcessEnv): SecretReader {
  return {
    readEnv: (name) => env[name],
    readFile: (path) => readFileSync(path, 'utf8'),
  };
}

export class SecretUnavailableError extends Error {
  constructor(readonly ref: SecretRef) {
    super(`secret ${describeSecretRef(ref)} is not available`);
    this.name = 'SecretUnavailableError';
  }
}

/** Resolves a reference to its value; trailing newlines of files are trimmed (mounted Secrets). */
export function resolveSecret(ref: SecretRef, reader: SecretReader): string {
  let value: string | undefined;
  if ('env' in ref) {
    value = reader.readEnv(ref.env);
  } else {
    try {
      value = reader.readFile(ref.file).replace(/\r?\n$/, '');
    } catch {
      value = undefined;
    }
  }
  if (value === undefined || value === '') throw new SecretUnavailableError(ref);
  return value;
}

/** A description safe for logs: names where the secret lives, never its value. */
export function describeSecretRef(ref: SecretRef): string {
  return 'env' in ref ? `env:${ref.env}` : `file:${ref.file}`;
}
