// Tenant objects and plan inputs for the operator unit tests: the four custom resources as the
// reconcile core's views (which are also what the controller's caches hold), the Secrets of a tenant
// namespace given as plain text, and a PlanInput for planWorkspace. One shape everywhere, so a
// test shows only what it varies.
import type { ControllerCaches, Resource } from '../../operator/controllers/controller-caches.js';
import type { PlanInput, SecretRead } from '../../operator/controllers/plan/plan-input.js';
import type {
  ApiKeyView,
  DataSourceView,
  McpSourceView,
  ResourceMeta,
  SecretKeyRef,
  WorkspaceView,
} from '../../operator/controllers/plan/resource-views.js';

/** The tenant namespace the plan tests use. */
export const TENANT = 'tenant-a';

type Meta = ResourceMeta & { readonly name: string; readonly namespace: string };

/** Metadata as the plan reads it: name, namespace, generation 1. */
export function meta(name: string, namespace: string = TENANT): Meta {
  return { name, namespace, generation: 1 };
}

/** Metadata as the informer caches hold it: with a uid (Events and ownerReferences name it) and a
 * creation time (the older Workspace owns a name). */
export function cachedMeta(name: string, namespace: string = TENANT): Meta {
  return { name, namespace, uid: `uid-${name}`, generation: 1, creationTimestamp: '2026-01-01T00:00:00Z' };
}

export function workspace<S = WorkspaceView['spec']>(metadata: Meta, spec: S = {} as S): Resource<S> {
  return { metadata, spec };
}

export function apiKey(
  metadata: Meta,
  workspaceName: string,
  spec: Omit<ApiKeyView['spec'], 'workspaceRef'> = {},
): ApiKeyView & Resource<ApiKeyView['spec']> {
  return { metadata, spec: { workspaceRef: { name: workspaceName }, ...spec } };
}

/** A streamable-http McpSource unless `spec.transport` says otherwise. */
export function mcpSource(
  metadata: Meta,
  workspaceName: string,
  spec: Omit<McpSourceView['spec'], 'workspaceRef' | 'transport'> & { readonly transport?: string },
): McpSourceView & Resource<McpSourceView['spec']> {
  return {
    metadata,
    spec: { workspaceRef: { name: workspaceName }, transport: 'streamable-http', ...spec },
  };
}

export function dataSource(
  metadata: Meta,
  workspaceName: string,
  spec: Omit<DataSourceView['spec'], 'workspaceRef'>,
): DataSourceView & Resource<DataSourceView['spec']> {
  return { metadata, spec: { workspaceRef: { name: workspaceName }, ...spec } };
}

/** The Secrets of a tenant namespace in plain text: Secret name → data key → value. */
export type TenantSecrets = Readonly<Record<string, Readonly<Record<string, string>>>>;

/** PlanInput.readSecret over `secrets`: a missing Secret, a missing key, or the value. */
export function secretReader(secrets: TenantSecrets): (ref: SecretKeyRef) => SecretRead {
  return (ref) => {
    const secret = secrets[ref.name];
    if (secret === undefined) return { missing: 'secret' };
    const value = secret[ref.key];
    return value === undefined ? { missing: 'key' } : { value };
  };
}

/** ControllerCaches.secret over `secrets` (any namespace), base64-encoded as the API server has it. */
export function cachedSecrets(secrets: TenantSecrets): ControllerCaches['secret'] {
  return (_namespace, name) => {
    const secret = secrets[name];
    if (secret === undefined) return undefined;
    return {
      data: Object.fromEntries(
        Object.entries(secret).map(([key, value]) => [key, Buffer.from(value).toString('base64')]),
      ),
    };
  };
}

/** A plan input for the Workspace `demo` (no resources, no keys) with `secrets` in its namespace;
 * `overrides` replace any field. */
export function planInput(overrides: Partial<PlanInput> = {}, secrets: TenantSecrets = {}): PlanInput {
  return {
    workspace: { metadata: meta('demo'), spec: {} },
    apiKeys: [],
    keyMaterial: new Map(),
    mcpSources: [],
    dataSources: [],
    readSecret: secretReader(secrets),
    ...overrides,
  };
}
