// Reconciles one workspace (level-triggered, key `<namespace>/<name>`): issues the keys of its
// ApiKeys, plans it (workspace-plan.ts), writes the rendered parts into the gateway namespace with
// Server-Side Apply, deletes parts a smaller revision no longer has, and reports a Ready condition
// on every resource. A deleted Workspace takes its rendered objects with it; so does a Workspace
// whose name is already taken by an older one in another namespace (names are global in the
// gateways). Reads come from informer caches, writes go through the KubeWriter port.
import {
  PARTS_ANNOTATION,
  REVISION_ANNOTATION,
  WORKSPACE_LABEL,
  WORKSPACE_NAMESPACE_LABEL,
  MANAGED_BY_LABEL,
  MANAGED_BY_VALUE,
  renderWorkspace,
  type PartKind,
} from '../../gateway/config/kube/index.js';
import type { Logger } from '../../gateway/telemetry/logger.js';
import type { KubeWriter } from '../kube/kube-writer.js';
import { identityUrls } from './identity-plan.js';
import {
  API_KEY_LABEL,
  decideKey,
  KEY_DATA,
  ROTATION_ANNOTATION,
  type ExistingKeySecret,
} from './key-issuer.js';
import type {
  ApiKeyView,
  DataSourceView,
  McpSourceView,
  ResourceMeta,
  WorkspaceView,
} from './resource-views.js';
import { credentialUrls } from './credential-plan.js';
import type { KeyMaterial } from './plan-input.js';
import type { ReadyCondition } from './ready-condition.js';
import { planWorkspace } from './workspace-plan.js';
import {
  namesToResolve,
  reachCheck,
  resolveNames,
  type NameResolver,
  type ReachCheck,
} from './reach-check.js';
import type { ReachPolicy } from '../../gateway/reach/index.js';
import type { EventRecorder, EventSubject, EventType } from '../kube/event-recorder.js';

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

export interface RenderedRef {
  readonly kind: PartKind;
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
}

/** Read access to the informer caches. */
export interface ControllerCaches {
  workspaces(): readonly Resource<WorkspaceView['spec']>[];
  apiKeys(namespace: string): readonly Resource<ApiKeyView['spec']>[];
  mcpSources(namespace: string): readonly Resource<McpSourceView['spec']>[];
  dataSources(namespace: string): readonly Resource<DataSourceView['spec']>[];
  secret(namespace: string, name: string): SecretObject | undefined;
  /** Rendered Secrets and ConfigMaps in the gateway namespace. */
  rendered(): readonly RenderedRef[];
}

export interface WorkspaceControllerDeps {
  readonly caches: ControllerCaches;
  readonly writer: KubeWriter;
  readonly gatewayNamespace: string;
  readonly logger: Logger;
  readonly now?: () => Date;
  /** The admin's tenant policy (D19, D24); absent: nothing is refused for where it reaches or trusts. */
  readonly policy?: ReachPolicy;
  /** Resolves the host names resources name before the policy decides them. */
  readonly resolver?: NameResolver;
  /** Where Events go; none are recorded without it. */
  readonly events?: EventRecorder;
}

const PLURALS = {
  apiKey: 'apikeys',
  mcpSource: 'mcpsources',
  dataSource: 'datasources',
  workspace: 'workspaces',
};

const KINDS: Record<string, string> = {
  apikeys: 'ApiKey',
  mcpsources: 'McpSource',
  datasources: 'DataSource',
  workspaces: 'Workspace',
};

function decoded(secret: SecretObject | undefined, key: string): string | undefined {
  const value = secret?.data?.[key];
  return value === undefined ? undefined : Buffer.from(value, 'base64').toString('utf8');
}

function created(resource: Resource<unknown>): number {
  const stamp = resource.metadata.creationTimestamp;
  return stamp === undefined ? 0 : new Date(stamp).getTime();
}

export class WorkspaceController {
  constructor(private readonly deps: WorkspaceControllerDeps) {}

  /** The workspace key every resource of a namespace maps to. */
  static key(namespace: string, workspace: string): string {
    return `${namespace}/${workspace}`;
  }

  async reconcile(key: string): Promise<void> {
    const [namespace, name] = key.split('/') as [string, string];
    const { caches } = this.deps;
    const workspace = caches
      .workspaces()
      .find(
        (w) =>
          w.metadata.namespace === namespace &&
          w.metadata.name === name &&
          w.metadata.deletionTimestamp === undefined,
      );
    const belongs = <V extends { workspaceRef: { name: string } }>(r: Resource<V>) =>
      r.spec.workspaceRef?.name === name && r.metadata.deletionTimestamp === undefined;
    const apiKeys = caches.apiKeys(namespace).filter(belongs);
    const mcpSources = caches.mcpSources(namespace).filter(belongs);
    const dataSources = caches.dataSources(namespace).filter(belongs);
    if (workspace === undefined) {
      await this.removeRendered(namespace, name);
      await this.reportDependents(apiKeys, mcpSources, dataSources, {
        ready: false,
        reason: 'WorkspaceNotFound',
        message: `spec.workspaceRef.name: no Workspace ${name} in namespace ${namespace} (references stay in their own namespace)`,
      });
      return;
    }
    const owner = this.nameOwner(name);
    if (owner !== workspace) {
      await this.removeRendered(namespace, name);
      const conflict: ReadyCondition = {
        ready: false,
        reason: 'NameConflict',
        message: `a Workspace named ${name} already exists in namespace ${owner?.metadata.namespace ?? '?'}; workspace names are global`,
      };
      await this.setStatus(PLURALS.workspace, workspace, conflict);
      await this.reportDependents(apiKeys, mcpSources, dataSources, {
        ready: false,
        reason: 'WorkspaceNotReady',
        message: `spec.workspaceRef.name: Workspace ${name} in namespace ${namespace} is not served (${conflict.reason})`,
      });
      return;
    }

    const keyMaterial = new Map<string, KeyMaterial>();
    const keySecrets = new Map<string, { secretName: string | undefined; rotation: number }>();
    for (const apiKey of apiKeys) {
      const secretName = `${apiKey.metadata.name}-key`;
      const secret = caches.secret(namespace, secretName);
      const existing: ExistingKeySecret | undefined =
        secret === undefined
          ? undefined
          : {
              managed: secret.metadata?.labels?.[API_KEY_LABEL] === apiKey.metadata.name,
              key: decoded(secret, KEY_DATA),
              rotation: secret.metadata?.annotations?.[ROTATION_ANNOTATION],
            };
      const decision = decideKey(apiKey, existing);
      if (decision.issue !== undefined) {
        await this.deps.writer.apply({
          kind: 'Secret',
          name: decision.secretName,
          namespace,
          labels: { [MANAGED_BY_LABEL]: MANAGED_BY_VALUE, [API_KEY_LABEL]: apiKey.metadata.name },
          annotations: { [ROTATION_ANNOTATION]: String(decision.issue.rotation) },
          data: { [KEY_DATA]: decision.issue.key },
          ...(apiKey.metadata.uid === undefined
            ? {}
            : {
                ownerReferences: [
                  {
                    apiVersion: 'agentgateway.dev/v1alpha1',
                    kind: 'ApiKey',
                    name: apiKey.metadata.name,
                    uid: apiKey.metadata.uid,
                    controller: true,
                    blockOwnerDeletion: true,
                  },
                ],
              }),
        });
        await this.recordEvent(
          PLURALS.apiKey,
          apiKey,
          'Normal',
          'KeyIssued',
          `issued a key into Secret ${decision.secretName} (rotation ${decision.issue.rotation})`,
        );
      }
      keyMaterial.set(apiKey.metadata.name, decision.material);
      keySecrets.set(apiKey.metadata.name, {
        secretName: decision.secretName,
        rotation: apiKey.spec.rotation ?? 0,
      });
    }

    const reach = await this.reachCheck(namespace, name, mcpSources, dataSources, workspace.spec);
    const identityPolicy = this.deps.policy?.policy.identity;
    const plan = planWorkspace({
      ...(reach === undefined ? {} : { reach }),
      ...(identityPolicy === undefined ? {} : { identityPolicy }),
      workspace: { metadata: workspace.metadata, spec: workspace.spec ?? {} },
      apiKeys,
      keyMaterial,
      mcpSources,
      dataSources,
      readSecret: (ref) => {
        const secret = caches.secret(namespace, ref.name);
        if (secret === undefined) return { missing: 'secret' };
        const value = decoded(secret, ref.key);
        return value === undefined ? { missing: 'key' } : { value };
      },
    });

    let revision: string;
    try {
      const rendered = renderWorkspace(plan.render);
      revision = rendered.revision;
      await this.writeParts(namespace, name, rendered.parts, revision);
    } catch (error) {
      await this.setStatus(PLURALS.workspace, workspace, {
        ready: false,
        reason: 'RenderFailed',
        message: error instanceof Error ? error.message.slice(0, 500) : 'rendering failed',
      });
      throw error;
    }

    for (const apiKey of apiKeys) {
      const condition = plan.apiKeys.get(apiKey.metadata.name) as ReadyCondition;
      const material = keyMaterial.get(apiKey.metadata.name);
      const secret = keySecrets.get(apiKey.metadata.name);
      await this.setStatus(PLURALS.apiKey, apiKey, condition, {
        ...(secret?.secretName === undefined ? {} : { secretName: secret.secretName }),
        ...(material !== undefined && 'id' in material ? { keyId: material.id } : {}),
        issuedRotation: secret?.rotation ?? 0,
      });
    }
    for (const source of mcpSources)
      await this.setStatus(
        PLURALS.mcpSource,
        source,
        plan.mcpSources.get(source.metadata.name) as ReadyCondition,
      );
    for (const source of dataSources)
      await this.setStatus(
        PLURALS.dataSource,
        source,
        plan.dataSources.get(source.metadata.name) as ReadyCondition,
      );
    const failing = [
      ...plan.mcpSources.values(),
      ...plan.dataSources.values(),
      ...plan.apiKeys.values(),
    ].filter((c) => !c.ready).length;
    // spec.identity not used is Ready=False (its reason, a Warning Event): OAuth callers are all
    // refused until it is fixed, unlike embeddings, which fall back to lexical search.
    const identity = plan.identity?.condition;
    const notes = [
      ...(failing === 0
        ? []
        : [`${failing} resource${failing === 1 ? '' : 's'} of it not ready (see their conditions)`]),
      ...(plan.embeddings === undefined || plan.embeddings.ready
        ? []
        : [`spec.embeddings not used (lexical search only): ${plan.embeddings.message}`]),
    ];
    await this.setStatus(
      PLURALS.workspace,
      workspace,
      identity !== undefined && !identity.ready
        ? { ...identity, message: ['served by the gateways', identity.message, ...notes].join('; ') }
        : { ready: true, reason: 'Rendered', message: ['served by the gateways', ...notes].join('; ') },
      {
        keys: plan.render.keys.length,
        sources: plan.render.mcpSources.length + plan.render.dataSources.length,
        revision,
        ...(plan.identity === undefined ? {} : { issuers: plan.identity.issuers }),
      },
    );
  }

  /** Deletes rendered objects and key Secrets whose owner no longer exists (no GC in every cluster). */
  async sweepOrphans(): Promise<void> {
    const live = new Set(
      this.deps.caches
        .workspaces()
        .filter((w) => this.nameOwner(w.metadata.name) === w)
        .map((w) => WorkspaceController.key(w.metadata.namespace, w.metadata.name)),
    );
    for (const object of this.deps.caches.rendered()) {
      const workspace = object.labels[WORKSPACE_LABEL];
      const namespace = object.labels[WORKSPACE_NAMESPACE_LABEL];
      if (workspace === undefined || namespace === undefined) continue;
      if (!live.has(WorkspaceController.key(namespace, workspace)))
        await this.deps.writer.remove(object.kind, this.deps.gatewayNamespace, object.name);
    }
  }

  /** Deletes the key Secret of an ApiKey that is gone. */
  async removeKeySecret(namespace: string, apiKey: string): Promise<void> {
    const secret = this.deps.caches.secret(namespace, `${apiKey}-key`);
    if (secret?.metadata?.labels?.[API_KEY_LABEL] === apiKey)
      await this.deps.writer.remove('Secret', namespace, `${apiKey}-key`);
  }

  /** The Workspace that owns `name` across namespaces: the oldest, then by namespace. */
  private nameOwner(name: string): Resource<WorkspaceView['spec']> | undefined {
    return this.deps.caches
      .workspaces()
      .filter((w) => w.metadata.name === name && w.metadata.deletionTimestamp === undefined)
      .sort((a, b) => created(a) - created(b) || a.metadata.namespace.localeCompare(b.metadata.namespace))[0];
  }

  private async writeParts(
    namespace: string,
    name: string,
    parts: ReturnType<typeof renderWorkspace>['parts'],
    revision: string,
  ): Promise<void> {
    const existing = this.renderedOf(namespace, name);
    for (const part of parts) {
      const current = existing.find((o) => o.kind === part.kind && o.name === part.name);
      if (
        current !== undefined &&
        current.annotations[REVISION_ANNOTATION] === revision &&
        current.annotations[PARTS_ANNOTATION] === part.annotations[PARTS_ANNOTATION]
      )
        continue;
      await this.deps.writer.apply({ ...part, namespace: this.deps.gatewayNamespace });
    }
    const wanted = new Set(parts.map((p) => `${p.kind}/${p.name}`));
    for (const object of existing) {
      if (wanted.has(`${object.kind}/${object.name}`)) continue;
      await this.deps.writer.remove(object.kind, this.deps.gatewayNamespace, object.name);
    }
  }

  private renderedOf(namespace: string, name: string): readonly RenderedRef[] {
    return this.deps.caches
      .rendered()
      .filter((o) => o.labels[WORKSPACE_LABEL] === name && o.labels[WORKSPACE_NAMESPACE_LABEL] === namespace);
  }

  private async removeRendered(namespace: string, name: string): Promise<void> {
    for (const object of this.renderedOf(namespace, name))
      await this.deps.writer.remove(object.kind, this.deps.gatewayNamespace, object.name);
  }

  /** Writes the Ready condition (and extra status fields) only when something changed. */
  private async setStatus(
    plural: string,
    resource: Resource<unknown>,
    condition: ReadyCondition,
    extra: Record<string, unknown> = {},
  ): Promise<void> {
    const generation = resource.metadata.generation ?? 0;
    const status = (resource.status ?? {}) as {
      observedGeneration?: number;
      conditions?: {
        type: string;
        status: string;
        reason: string;
        message: string;
        lastTransitionTime: string;
      }[];
    };
    const previous = status.conditions?.find((c) => c.type === 'Ready');
    const wanted = condition.ready ? 'True' : 'False';
    const unchanged =
      previous !== undefined &&
      previous.status === wanted &&
      previous.reason === condition.reason &&
      previous.message === condition.message &&
      status.observedGeneration === generation &&
      Object.entries(extra).every(([k, v]) => (status as Record<string, unknown>)[k] === v);
    if (unchanged) return;
    const now = (this.deps.now ?? (() => new Date()))()
      .toISOString()
      .replace(/\.\d+Z$/, 'Z');
    await this.deps.writer.patchStatus(plural, resource.metadata.namespace, resource.metadata.name, {
      observedGeneration: generation,
      conditions: [
        {
          type: 'Ready',
          status: wanted,
          observedGeneration: generation,
          lastTransitionTime:
            previous !== undefined && previous.status === wanted ? previous.lastTransitionTime : now,
          reason: condition.reason,
          message: condition.message,
        },
      ],
      ...extra,
    });
    const transitioned =
      previous === undefined ||
      previous.status !== wanted ||
      previous.reason !== condition.reason ||
      previous.message !== condition.message;
    if (transitioned)
      await this.recordEvent(
        plural,
        resource,
        condition.ready ? 'Normal' : 'Warning',
        condition.reason,
        condition.message,
      );
  }

  /** Resources of a workspace that is not served say why (item 3 of issue 20). */
  private async reportDependents(
    apiKeys: readonly Resource<ApiKeyView['spec']>[],
    mcpSources: readonly Resource<McpSourceView['spec']>[],
    dataSources: readonly Resource<DataSourceView['spec']>[],
    condition: ReadyCondition,
  ): Promise<void> {
    for (const apiKey of apiKeys) await this.setStatus(PLURALS.apiKey, apiKey, condition);
    for (const source of mcpSources) await this.setStatus(PLURALS.mcpSource, source, condition);
    for (const source of dataSources) await this.setStatus(PLURALS.dataSource, source, condition);
  }

  /** The policy's decisions for this workspace, with the host names its resources name resolved. */
  private async reachCheck(
    namespace: string,
    workspace: string,
    mcpSources: readonly Resource<McpSourceView['spec']>[],
    dataSources: readonly Resource<DataSourceView['spec']>[],
    spec: WorkspaceView['spec'] | undefined,
  ): Promise<ReachCheck | undefined> {
    const policy = this.deps.policy;
    if (policy === undefined) return undefined;
    const urls = [
      ...mcpSources.map((s) => s.spec.url),
      ...dataSources.map((s) => s.spec.http?.url),
      ...mcpSources.flatMap((s) => credentialUrls(s.spec.credential)),
      ...dataSources.flatMap((s) => credentialUrls(s.spec.http?.credential)),
      spec?.embeddings?.baseUrl,
      ...identityUrls(spec?.identity),
    ].filter((url): url is string => typeof url === 'string');
    const connectionStrings: string[] = [];
    for (const source of dataSources) {
      const ref = source.spec.postgres?.connectionString?.secretKeyRef;
      if (ref === undefined) continue;
      const value = decoded(this.deps.caches.secret(namespace, ref.name), ref.key);
      if (value !== undefined) connectionStrings.push(value);
    }
    const resolved = await resolveNames(namesToResolve(urls, connectionStrings), this.deps.resolver);
    return reachCheck(policy, { namespace, workspace }, resolved);
  }

  private async recordEvent(
    plural: string,
    resource: Resource<unknown>,
    type: EventType,
    reason: string,
    message: string,
  ): Promise<void> {
    const events = this.deps.events;
    if (events === undefined) return;
    const subject: EventSubject = {
      kind: KINDS[plural] ?? plural,
      namespace: resource.metadata.namespace,
      name: resource.metadata.name,
      ...(resource.metadata.uid === undefined ? {} : { uid: resource.metadata.uid }),
    };
    try {
      await events.record(subject, type, reason, message);
    } catch (error) {
      this.deps.logger.debug(
        { kind: subject.kind, name: subject.name, status: (error as { code?: number }).code },
        'could not record an event',
      );
    }
  }
}
