// Test access to the run's real kube-apiserver (started by test/infra/kube-global-setup.ts):
// kubectl with the run's kubeconfig, a client-node KubeConfig, and a fresh namespace per test file.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { inject } from 'vitest';

export interface KubectlResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export function kubeconfigPath(): string {
  return inject('kubeconfig');
}

export function kubeConfig(): KubeConfig {
  const config = new KubeConfig();
  config.loadFromFile(kubeconfigPath());
  return config;
}

/** Runs kubectl against the test apiserver; never throws on a non-zero exit. */
export function kubectl(args: readonly string[], input?: string): Promise<KubectlResult> {
  return new Promise((resolve) => {
    const child = execFile(
      join(inject('kubeBin'), 'kubectl'),
      ['--kubeconfig', kubeconfigPath(), ...args],
      { maxBuffer: 16 << 20 },
      (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : Number(error.code ?? 1), stdout, stderr }),
    );
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** kubectl that must succeed. */
export async function kubectlOk(args: readonly string[], input?: string): Promise<string> {
  const result = await kubectl(args, input);
  if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout;
}

/** A new namespace with a random suffix. */
export async function freshNamespace(prefix: string): Promise<string> {
  const name = `${prefix}-${randomBytes(3).toString('hex')}`;
  await kubectlOk(['create', 'namespace', name]);
  return name;
}
