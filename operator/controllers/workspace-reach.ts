// The tenant reach policy's decisions for one workspace (D19), ready for the synchronous plan: the
// URLs and connection strings its resources name are collected, their host names resolved (the
// operator sees the cluster's DNS as the gateways do), and reach-check.ts decides on the result.
import type { ReachPolicy } from '../../gateway/reach/index.js';
import { decoded, type ControllerCaches, type Resource } from './controller-caches.js';
import { credentialUrls } from './plan/credential-plan.js';
import { governanceUrls } from './plan/guardrails-plan.js';
import { identityUrls } from './plan/identity-plan.js';
import {
  namesToResolve,
  reachCheck,
  resolveNames,
  type NameResolver,
  type ReachCheck,
} from './plan/reach-check.js';
import type { DataSourceView, McpSourceView, WorkspaceView } from './plan/resource-views.js';

export interface WorkspaceReachDeps {
  readonly caches: ControllerCaches;
  /** Absent: nothing is refused for where it reaches. */
  readonly policy: ReachPolicy | undefined;
  readonly resolver: NameResolver | undefined;
}

export interface WorkspaceResources {
  readonly namespace: string;
  readonly workspace: string;
  readonly spec: WorkspaceView['spec'] | undefined;
  readonly mcpSources: readonly Resource<McpSourceView['spec']>[];
  readonly dataSources: readonly Resource<DataSourceView['spec']>[];
}

/** The policy's decisions for this workspace, with the host names its resources name resolved. */
export async function workspaceReach(
  { caches, policy, resolver }: WorkspaceReachDeps,
  { namespace, workspace, spec, mcpSources, dataSources }: WorkspaceResources,
): Promise<ReachCheck | undefined> {
  if (policy === undefined) return undefined;
  const urls = [
    ...mcpSources.map((s) => s.spec.url),
    ...mcpSources.map((s) => s.spec.openapi?.document.url),
    ...dataSources.map((s) => s.spec.http?.url),
    ...mcpSources.flatMap((s) => credentialUrls(s.spec.credential)),
    ...dataSources.flatMap((s) => credentialUrls(s.spec.http?.credential)),
    spec?.embeddings?.baseUrl,
    ...identityUrls(spec?.identity),
    ...governanceUrls(spec?.governance),
  ].filter((url): url is string => typeof url === 'string');
  const connectionStrings: string[] = [];
  for (const source of dataSources) {
    const ref = source.spec.postgres?.connectionString?.secretKeyRef;
    if (ref === undefined) continue;
    const value = decoded(caches.secret(namespace, ref.name), ref.key);
    if (value !== undefined) connectionStrings.push(value);
  }
  const resolved = await resolveNames(namesToResolve(urls, connectionStrings), resolver);
  return reachCheck(policy, { namespace, workspace }, resolved);
}
