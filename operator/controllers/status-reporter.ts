// How the workspace controller tells: a Ready condition (with observedGeneration) on every resource
// it reconciles, patched only when something changed (reconciling twice writes nothing, D11), and an
// Event on every transition and on each issued key. An Event that cannot be recorded is logged at
// debug and never fails the reconcile.
import type { Logger } from '../../gateway/telemetry/logger.js';
import type { EventRecorder, EventSubject, EventType } from '../kube/event-recorder.js';
import type { KubeWriter } from '../kube/kube-writer.js';
import type { Resource } from './controller-caches.js';
import type { ReadyCondition } from './plan/ready-condition.js';
import type { ApiKeyView, DataSourceView, McpSourceView } from './plan/resource-views.js';

export const PLURALS = {
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

export interface StatusReporterDeps {
  readonly writer: KubeWriter;
  readonly logger: Logger;
  readonly now?: () => Date;
  /** Where Events go; none are recorded without it. */
  readonly events?: EventRecorder;
}

interface ReadyStatus {
  observedGeneration?: number;
  conditions?: {
    type: string;
    status: string;
    reason: string;
    message: string;
    lastTransitionTime: string;
  }[];
}

export class StatusReporter {
  constructor(private readonly deps: StatusReporterDeps) {}

  /** Writes the Ready condition (and extra status fields) only when something changed. */
  async setStatus(
    plural: string,
    resource: Resource<unknown>,
    condition: ReadyCondition,
    extra: Record<string, unknown> = {},
  ): Promise<void> {
    const generation = resource.metadata.generation ?? 0;
    const status = (resource.status ?? {}) as ReadyStatus;
    const previous = status.conditions?.find((c) => c.type === 'Ready');
    const wanted = condition.ready ? 'True' : 'False';
    const unchanged =
      previous !== undefined &&
      previous.status === wanted &&
      previous.reason === condition.reason &&
      previous.message === condition.message &&
      status.observedGeneration === generation &&
      Object.entries(extra).every(([k, v]) =>
        // null removes a field (merge patch): unchanged when it is already absent.
        v === null ? !(k in status) : (status as Record<string, unknown>)[k] === v,
      );
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
  async reportDependents(
    apiKeys: readonly Resource<ApiKeyView['spec']>[],
    mcpSources: readonly Resource<McpSourceView['spec']>[],
    dataSources: readonly Resource<DataSourceView['spec']>[],
    condition: ReadyCondition,
  ): Promise<void> {
    for (const apiKey of apiKeys) await this.setStatus(PLURALS.apiKey, apiKey, condition);
    for (const source of mcpSources) await this.setStatus(PLURALS.mcpSource, source, condition);
    for (const source of dataSources) await this.setStatus(PLURALS.dataSource, source, condition);
  }

  async recordEvent(
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
