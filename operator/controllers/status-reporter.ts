// How the workspace controller tells: a Ready condition (with observedGeneration) on every resource
// it reconciles, patched only when something changed (reconciling twice writes nothing, D11), and an
// Event on every transition and on each issued key. An Event that cannot be recorded is logged at
// debug and never fails the reconcile.
import type { Logger } from '../../gateway/telemetry/logger.js';
import type { EventRecorder, EventSubject, EventType } from '../kube/event-recorder.js';
import type { KubeWriter } from '../kube/kube-writer.js';
import type { Resource } from './controller-caches.js';
import type { ExtraCondition, ReadyCondition } from './plan/ready-condition.js';
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

  /** Writes the Ready condition (and extra status fields and conditions) only when something
   * changed. An extra field that is an object is written whole; its null fields are removed. */
  async setStatus(
    plural: string,
    resource: Resource<unknown>,
    condition: ReadyCondition,
    extra: Record<string, unknown> = {},
    extraConditions: readonly ExtraCondition[] = [],
  ): Promise<void> {
    const generation = resource.metadata.generation ?? 0;
    const status = (resource.status ?? {}) as ReadyStatus;
    const previous = status.conditions?.find((c) => c.type === 'Ready');
    const wanted = condition.ready ? 'True' : 'False';
    const conditions: ExtraCondition[] = [
      { type: 'Ready', status: wanted, reason: condition.reason, message: condition.message },
      ...extraConditions,
    ];
    const unchanged =
      status.observedGeneration === generation &&
      (status.conditions ?? []).length === conditions.length &&
      conditions.every((c) => {
        const was = status.conditions?.find((p) => p.type === c.type);
        return (
          was !== undefined && was.status === c.status && was.reason === c.reason && was.message === c.message
        );
      }) &&
      Object.entries(extra).every(([k, v]) =>
        // null removes a field (merge patch): unchanged when it is already absent (or null).
        v === null
          ? (status as Record<string, unknown>)[k] == null
          : sameValue((status as Record<string, unknown>)[k], v),
      );
    if (unchanged) return;
    const now = (this.deps.now ?? (() => new Date()))()
      .toISOString()
      .replace(/\.\d+Z$/, 'Z');
    await this.deps.writer.patchStatus(plural, resource.metadata.namespace, resource.metadata.name, {
      observedGeneration: generation,
      conditions: conditions.map((c) => {
        const was = status.conditions?.find((p) => p.type === c.type);
        return {
          type: c.type,
          status: c.status,
          observedGeneration: generation,
          lastTransitionTime: was !== undefined && was.status === c.status ? was.lastTransitionTime : now,
          reason: c.reason,
          message: c.message,
        };
      }),
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

/** Whether a status field as read equals what would be written (objects: by content, nulls left
 * out, key order ignored; the API server returns keys sorted). */
function sameValue(current: unknown, wanted: unknown): boolean {
  if (typeof wanted !== 'object' || wanted === null) return current === wanted;
  return canonical(current) === canonical(wanted);
}

function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    typeof v === 'object' && v !== null && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v)
            .filter(([, field]) => field !== null)
            .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );
}
