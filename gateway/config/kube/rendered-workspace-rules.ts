// What a workspace from the Kubernetes API may not contain even when it is valid config (D19): it
// was written by the operator from tenant resources, and whoever can write rendered objects must
// not gain more than a tenant. Secrets come only from the workspace's own rendered Secret (never an
// environment variable or a file of the gateway pod, never another workspace's entry), and no
// source runs a local process.
import type { GatewayConfig } from '../config-schema.js';
import type { WorkspaceConfig } from '../workspace-schema.js';
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
  workspace.identity?.issuers.forEach((issuer, index) =>
    check(issuer.introspection?.clientSecret, `identity.issuers.${index}.introspection.clientSecret`),
  );
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

/** The gateway-wide rules a workspace's identity section depends on (checkOAuth in the file shape,
 * where one author writes both): the admin's `oauth` section must be there. */
export function identityBaseProblems(
  workspace: WorkspaceConfig,
  base: Pick<GatewayConfig, 'oauth'>,
): ConfigProblem[] {
  if (workspace.identity === undefined || base.oauth !== undefined) return [];
  return [
    {
      path: 'identity',
      message:
        'the gateways have no oauth section (the admin turns it on: the chart’s oauth values), so OAuth sign-in is off',
    },
  ];
}

/** Opaque tokens go to exactly one introspection endpoint, chosen by tokenPrefix across every
 * workspace. Tenants do not trust each other: a prefix of one could capture another's tokens and
 * send them to its own endpoint, and two unprefixed endpoints make every opaque token ambiguous. So
 * when two workspaces introspect, both need a tokenPrefix and neither may start the other; a
 * workspace that breaks this with one already served is refused (the served one keeps working,
 * D17). Returns the other workspace's name. */
export function introspectionClash(
  workspace: WorkspaceConfig,
  others: Iterable<WorkspaceConfig>,
): string | undefined {
  const mine = introspectionPrefixes(workspace);
  if (mine.length === 0) return undefined;
  for (const other of others) {
    if (other.name === workspace.name) continue;
    for (const theirs of introspectionPrefixes(other))
      for (const prefix of mine)
        if (prefix === '' || theirs === '' || prefix.startsWith(theirs) || theirs.startsWith(prefix))
          return other.name;
  }
  return undefined;
}

/** Each introspecting issuer's tokenPrefix, '' for none. */
function introspectionPrefixes(workspace: WorkspaceConfig): string[] {
  return (workspace.identity?.issuers ?? []).flatMap((issuer) =>
    issuer.introspection === undefined ? [] : [issuer.introspection.tokenPrefix ?? ''],
  );
}
