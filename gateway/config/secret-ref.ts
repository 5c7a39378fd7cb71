// Secret references (issue: secrets in config are references, never inline values). A reference
// names an environment variable, a file, or (in config rendered by the operator) an entry of one of
// the workspace's rendered Kubernetes Secrets; the value is read at use time and never logged.
import { readFileSync } from 'node:fs';
import { z } from 'zod';

export const SecretRefSchema = z.union(
  [
    z.strictObject({
      env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name'),
    }),
    z.strictObject({ file: z.string().min(1, 'must be a file path') }),
    z.strictObject({
      kubernetesSecret: z.strictObject({
        name: z.string().regex(/^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$/, 'must be a Secret name'),
        key: z.string().regex(/^[A-Za-z0-9._-]{1,253}$/, 'must be a Secret data key'),
      }),
    }),
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
  /** An entry of a rendered Secret in the gateway's namespace; only the Kubernetes config source
   * provides these (the file shape has none, so such references are unavailable there). */
  readKubernetesSecret?(name: string, key: string): string | undefined;
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
  } else if ('kubernetesSecret' in ref) {
    value = reader.readKubernetesSecret?.(ref.kubernetesSecret.name, ref.kubernetesSecret.key);
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
  if ('env' in ref) return `env:${ref.env}`;
  if ('kubernetesSecret' in ref) return `secret:${ref.kubernetesSecret.name}/${ref.kubernetesSecret.key}`;
  return `file:${ref.file}`;
}
