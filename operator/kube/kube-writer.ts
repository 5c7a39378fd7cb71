// Every write the operator makes, in one place: Server-Side Apply (field manager
// `agent-gateway-operator`, forced) for the Secrets and ConfigMaps it owns and the Deployments,
// Services and NetworkPolicies of the MCP servers it runs (D25), deletes that tolerate
// 404, and status through the status subresource (merge patch), so spec edits alone bump generation.
import {
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  NetworkingV1Api,
  type V1Deployment,
  type V1NetworkPolicy,
  type V1Service,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
} from '@kubernetes/client-node';
import { GROUP, VERSION } from '../api/v1alpha1/index.js';

export const FIELD_MANAGER = 'agent-gateway-operator';

export interface ObjectToApply {
  readonly kind: 'Secret' | 'ConfigMap';
  readonly name: string;
  readonly namespace: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  /** Text data; Secrets are base64-encoded here. */
  readonly data: Readonly<Record<string, string>>;
  readonly ownerReferences?: readonly Record<string, unknown>[];
}

/** The objects of an MCP server the operator runs (D25), in the tenant namespace. */
export type WorkloadKind = 'Deployment' | 'Service' | 'NetworkPolicy';

/** A whole object to apply (apiVersion, kind, metadata with name and namespace, spec). */
export interface WorkloadObject {
  readonly kind: WorkloadKind;
  readonly metadata: { readonly name: string; readonly namespace: string };
  readonly [field: string]: unknown;
}

/** The port the controllers write through (an in-memory twin records writes in unit tests). */
export interface KubeWriter {
  apply(object: ObjectToApply): Promise<void>;
  remove(kind: 'Secret' | 'ConfigMap', namespace: string, name: string): Promise<void>;
  /** Server-Side Apply of a workload object (same field manager, forced). */
  applyWorkload(object: WorkloadObject): Promise<void>;
  removeWorkload(kind: WorkloadKind, namespace: string, name: string): Promise<void>;
  patchStatus(
    plural: string,
    namespace: string,
    name: string,
    status: Record<string, unknown>,
  ): Promise<void>;
}

function isNotFound(error: unknown): boolean {
  return (error as { code?: number }).code === 404;
}

export class ApiKubeWriter implements KubeWriter {
  private readonly core: CoreV1Api;
  private readonly custom: CustomObjectsApi;
  private readonly apps: AppsV1Api;
  private readonly networking: NetworkingV1Api;

  constructor(kubeConfig: KubeConfig) {
    this.core = kubeConfig.makeApiClient(CoreV1Api);
    this.custom = kubeConfig.makeApiClient(CustomObjectsApi);
    this.apps = kubeConfig.makeApiClient(AppsV1Api);
    this.networking = kubeConfig.makeApiClient(NetworkingV1Api);
  }

  async applyWorkload(object: WorkloadObject): Promise<void> {
    const ssa = setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply);
    const request = {
      name: object.metadata.name,
      namespace: object.metadata.namespace,
      fieldManager: FIELD_MANAGER,
      force: true,
    };
    switch (object.kind) {
      case 'Deployment':
        await this.apps.patchNamespacedDeployment({ ...request, body: object as V1Deployment }, ssa);
        return;
      case 'Service':
        await this.core.patchNamespacedService({ ...request, body: object as V1Service }, ssa);
        return;
      case 'NetworkPolicy':
        await this.networking.patchNamespacedNetworkPolicy(
          { ...request, body: object as V1NetworkPolicy },
          ssa,
        );
        return;
    }
  }

  async removeWorkload(kind: WorkloadKind, namespace: string, name: string): Promise<void> {
    try {
      if (kind === 'Deployment') await this.apps.deleteNamespacedDeployment({ name, namespace });
      else if (kind === 'Service') await this.core.deleteNamespacedService({ name, namespace });
      else await this.networking.deleteNamespacedNetworkPolicy({ name, namespace });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }

  async apply(object: ObjectToApply): Promise<void> {
    const metadata = {
      name: object.name,
      namespace: object.namespace,
      labels: { ...object.labels },
      annotations: { ...object.annotations },
      ...(object.ownerReferences === undefined ? {} : { ownerReferences: object.ownerReferences }),
    };
    const ssa = setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply);
    const request = {
      name: object.name,
      namespace: object.namespace,
      fieldManager: FIELD_MANAGER,
      force: true,
    };
    if (object.kind === 'Secret') {
      const data = Object.fromEntries(
        Object.entries(object.data).map(([key, value]) => [
          key,
          Buffer.from(value, 'utf8').toString('base64'),
        ]),
      );
      await this.core.patchNamespacedSecret(
        { ...request, body: { apiVersion: 'v1', kind: 'Secret', metadata, type: 'Opaque', data } },
        ssa,
      );
    } else {
      await this.core.patchNamespacedConfigMap(
        { ...request, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata, data: { ...object.data } } },
        ssa,
      );
    }
  }

  async remove(kind: 'Secret' | 'ConfigMap', namespace: string, name: string): Promise<void> {
    try {
      if (kind === 'Secret') await this.core.deleteNamespacedSecret({ name, namespace });
      else await this.core.deleteNamespacedConfigMap({ name, namespace });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }

  async patchStatus(
    plural: string,
    namespace: string,
    name: string,
    status: Record<string, unknown>,
  ): Promise<void> {
    try {
      await this.custom.patchNamespacedCustomObjectStatus(
        { group: GROUP, version: VERSION, namespace, plural, name, body: { status } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
    } catch (error) {
      // The resource was deleted meanwhile: nothing to report on.
      if (!isNotFound(error)) throw error;
    }
  }
}
