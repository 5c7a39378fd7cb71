// What the workspace controller reads: the informer caches (custom resources, tenant Secrets, the
// objects it rendered into the gateway namespace), as a port so unit tests hand it arrays. Reads
// only; every write goes through the KubeWriter port (operator/kube/kube-writer.ts).
import type { PartKind } from '../../gateway/config/kube/index.js';
import type {
  ApiKeyView,
  DataSourceView,
  McpSourceView,
  ResourceMeta,
  WorkspaceView,
} from './plan/resource-views.js';

/** A custom resource as the caches hold it. */
export interface Resource<V> {
  readonly metadata: ResourceMeta & { readonly name: string; readonly namespace: string };
  readonly spec: V;
  readonly status?: Record<string, unknown>;
}

export interface SecretObject {
  readonly metadata?: {
    readonly labels?: Record<string, string>;
    readonly annotations?: Record<string, string>;
  };
  readonly data?: Record<string, string>;
}

/** A tenant ConfigMap as the cache holds it (an OpenAPI document's configMapKeyRef, issue 44). */
export interface ConfigMapObject {
  readonly data?: Record<string, string>;
}

export interface RenderedRef {
  readonly kind: PartKind;
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
}

/** A Deployment the operator rendered for an McpSource's spec.run (D25), as the cache holds it. */
export interface WorkloadRef {
  readonly name: string;
  readonly namespace: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly desiredReplicas: number;
  readonly readyReplicas: number;
}

/** Read access to the informer caches. */
export interface ControllerCaches {
  workspaces(): readonly Resource<WorkspaceView['spec']>[];
  apiKeys(namespace: string): readonly Resource<ApiKeyView['spec']>[];
  mcpSources(namespace: string): readonly Resource<McpSourceView['spec']>[];
  dataSources(namespace: string): readonly Resource<DataSourceView['spec']>[];
  secret(namespace: string, name: string): SecretObject | undefined;
  /** A ConfigMap of a tenant namespace; absent in caches that hold none (every one is then missing). */
  configMap?(namespace: string, name: string): ConfigMapObject | undefined;
  /** Rendered Secrets and ConfigMaps in the gateway namespace. */
  rendered(): readonly RenderedRef[];
  /** The operator's Deployments of McpSources with spec.run (every namespace when undefined);
   * absent in caches that hold none (no run source is then ever found written). */
  workloads?(namespace?: string): readonly WorkloadRef[];
}

/** One data entry of a cached Secret, base64-decoded; undefined when the Secret or key is absent. */
export function decoded(secret: SecretObject | undefined, key: string): string | undefined {
  const value = secret?.data?.[key];
  return value === undefined ? undefined : Buffer.from(value, 'base64').toString('utf8');
}
