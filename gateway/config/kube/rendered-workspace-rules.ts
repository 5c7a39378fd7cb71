// What a workspace from the Kubernetes API may not contain even when it is valid config (D19): it
// was written by the operator from tenant resources, and whoever can write rendered objects must
// not gain more than a tenant. Secrets come only from the workspace's own rendered Secret (never an
// environment variable or a file of the gateway pod, never another workspace's entry), and no
// source runs a local process.
import type { WorkspaceConfig } from '../config-schema.js';
import type { ConfigProblem } from '../config-loader.js';
import type { SecretRef } from '../secret-ref.js';
import { credentialSecrets } from '../upstream-credential-schema.js';
import { credentialSecretName } from './workspace-renderer.js';

export function renderedWorkspaceProblems(workspace: WorkspaceConfig): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const own = credentialSecretName(workspace.name);
  const check = (ref: SecretRef | undefined, path: string) => {
    if (ref === undefined) return;
    if (!('kubernetesSecret' in ref))
      problems.push({
        path,
        message:
          'must reference the workspace’s rendered Secret (env and file references are not accepted from the API)',
      });
    else if (ref.kubernetesSecret.name !== own)
      problems.push({ path, message: `must reference the workspace’s own Secret ${own}` });
  };
  if (workspace.embeddings !== undefined && workspace.embeddings !== false)
    check(workspace.embeddings.apiKey, 'embeddings.apiKey');
  workspace.mcpSources.forEach((source, index) => {
    const path = `mcpSources.${index}`;
    if (source.transport === 'stdio')
      problems.push({ path: `${path}.transport`, message: 'stdio sources are not accepted from the API' });
    for (const [field, ref] of credentialSecrets(source.credential))
      check(ref, `${path}.credential.${field}`);
    for (const [name, value] of Object.entries(source.env))
      if (typeof value !== 'string') check(value, `${path}.env.${name}`);
  });
  workspace.dataSources.forEach((source, index) => {
    const path = `dataSources.${index}`;
    if (source.type === 'http')
      for (const [field, ref] of credentialSecrets(source.credential))
        check(ref, `${path}.credential.${field}`);
    if (source.type === 'postgres') check(source.connectionString, `${path}.connectionString`);
  });
  return problems;
}
