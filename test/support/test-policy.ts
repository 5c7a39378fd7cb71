// A tenant reach policy for tests whose upstreams and files live on this machine: Kubernetes mode
// applies the secure defaults (no file roots, loopback denied) unless the admin says otherwise, so
// tests that run the operator and `serve --kubernetes` against loopback servers write this policy:
// loopback allowed as an admin's explicit CIDR exception, the given directories as file roots, and
// the given identity policy (the issuers tenants may trust; none without it).
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';

export interface TestPolicyFiles {
  /** For `agent-gateway operator --policy`. */
  readonly policyPath: string;
  /** For `agent-gateway serve --kubernetes --config`: `{version: 1, policy}` plus `extra`. */
  readonly baseConfigPath: string;
  readonly policy: Record<string, unknown>;
}

export async function writeTestPolicy(
  options: {
    fileRoots?: readonly string[];
    extraBase?: Record<string, unknown>;
    identity?: Record<string, unknown>;
  } = {},
): Promise<TestPolicyFiles> {
  const dir = await mkdtemp(join(tmpdir(), 'agw-policy-'));
  const policy = {
    files: { allowedRoots: [...(options.fileRoots ?? [])] },
    network: { allow: { cidrs: ['127.0.0.0/8', '::1/128'], hosts: [] } },
    ...(options.identity === undefined ? {} : { identity: options.identity }),
  };
  const policyPath = join(dir, 'policy.yaml');
  const baseConfigPath = join(dir, 'base.yaml');
  await writeFile(policyPath, stringify(policy));
  await writeFile(baseConfigPath, stringify({ version: 1, ...(options.extraBase ?? {}), policy }));
  return { policyPath, baseConfigPath, policy };
}
