// What the reconcile core is given for one workspace (workspace-plan.ts): the resources as views,
// the key material of its ApiKeys, and read access to Secrets of its own namespace. The controller
// builds it from the informer caches; unit tests build it by hand.
import type { IdentityPolicy } from '../../../gateway/config/index.js';
import type { OpenApiDocumentRead } from './openapi-plan.js';
import type { ReachCheck } from './reach-check.js';
import type { WorkloadContext } from './workload-plan.js';
import type { ReadyCondition } from './ready-condition.js';
import type {
  ApiKeyView,
  DataSourceView,
  McpSourceView,
  SecretKeyRef,
  WorkspaceView,
} from './resource-views.js';

export type SecretRead = { readonly value: string } | { readonly missing: 'secret' | 'key' };

/** The key of an ApiKey as the gateways store it: its id and hash, never the plaintext. */
export type KeyMaterial =
  { readonly id: string; readonly hash: string } | { readonly problem: ReadyCondition };

export interface PlanInput {
  readonly workspace: WorkspaceView;
  readonly apiKeys: readonly ApiKeyView[];
  readonly keyMaterial: ReadonlyMap<string, KeyMaterial>;
  readonly mcpSources: readonly McpSourceView[];
  readonly dataSources: readonly DataSourceView[];
  /** A Secret in the workspace's (tenant) namespace; references never leave it (D16). */
  readSecret(ref: SecretKeyRef): SecretRead;
  /** The OpenAPI documents the operator read (inline or configMapKeyRef, issue 44), by McpSource
   * name; a transport openapi source with such a document and no entry is not rendered. */
  readonly openApiDocuments?: ReadonlyMap<string, OpenApiDocumentRead>;
  /** The tenant reach policy (D19): paths and network targets it refuses are not rendered. */
  readonly reach?: ReachCheck;
  /** The identity part of the tenant policy (D24): the issuers spec.identity may declare. */
  readonly identityPolicy?: IdentityPolicy;
  /** How McpSources with spec.run are decided and rendered (D25), and the bearer token minted for
   * each stdio one (by source name); absent: spec.run is refused as by the default policy. */
  readonly workloads?: {
    readonly context: Omit<WorkloadContext, 'readSecret'>;
    readonly tokens: ReadonlyMap<string, string>;
  };
}
