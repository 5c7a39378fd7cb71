// The workspace controller against twins, for the operator unit tests: in-memory caches (empty but
// for what a test gives), a recording KubeWriter, and readers for what it wrote (the Ready
// condition of a resource, a rendered fragment). No cluster, no clock, no DNS.
import { createPinoLogger } from '../../gateway/telemetry/index.js';
import type { ControllerCaches } from '../../operator/controllers/controller-caches.js';
import type { NameResolver } from '../../operator/controllers/plan/reach-check.js';
import {
  WorkspaceController,
  type WorkspaceControllerDeps,
} from '../../operator/controllers/workspace-controller.js';
import type {
  KubeWriter,
  ObjectToApply,
  WorkloadKind,
  WorkloadObject,
} from '../../operator/kube/kube-writer.js';

/** The KubeWriter twin: keeps every apply, delete and status patch in order. */
export class RecordingWriter implements KubeWriter {
  readonly applied: ObjectToApply[] = [];
  /** `<kind>/<namespace>/<name>` of every delete. */
  readonly removed: string[] = [];
  readonly statuses: { plural: string; name: string; status: Record<string, unknown> }[] = [];
  /** Workload objects applied (Deployment, Service, NetworkPolicy), in order. */
  readonly workloads: WorkloadObject[] = [];
  applyWorkload(object: WorkloadObject): Promise<void> {
    this.workloads.push(object);
    return Promise.resolve();
  }
  removeWorkload(kind: WorkloadKind, namespace: string, name: string): Promise<void> {
    this.removed.push(`${kind}/${namespace}/${name}`);
    return Promise.resolve();
  }
  apply(object: ObjectToApply): Promise<void> {
    this.applied.push(object);
    return Promise.resolve();
  }
  remove(kind: string, namespace: string, name: string): Promise<void> {
    this.removed.push(`${kind}/${namespace}/${name}`);
    return Promise.resolve();
  }
  patchStatus(
    plural: string,
    _namespace: string,
    name: string,
    status: Record<string, unknown>,
  ): Promise<void> {
    this.statuses.push({ plural, name, status });
    return Promise.resolve();
  }
}

/** The status of a resource as last patched; its Ready condition is `conditions[0]`. */
export interface PatchedStatus {
  readonly conditions: { status: string; reason: string; message: string }[];
  readonly issuers?: number;
}

export function lastStatus(writer: RecordingWriter, name: string): PatchedStatus | undefined {
  return writer.statuses.filter((s) => s.name === name).at(-1)?.status as PatchedStatus | undefined;
}

/** The Ready condition last patched on the resource `name`. */
export function readyOf(
  writer: RecordingWriter,
  name: string,
): PatchedStatus['conditions'][number] | undefined {
  return lastStatus(writer, name)?.conditions[0];
}

/** The `fragment.json` of the rendered object `name` (agw-ws-<workspace>-c0 …), '' when not written. */
export function fragmentOf(writer: RecordingWriter, name: string): string {
  return writer.applied.find((o) => o.name === name)?.data['fragment.json'] ?? '';
}

/** Caches holding nothing but what `overrides` gives. */
export function controllerCaches(overrides: Partial<ControllerCaches> = {}): ControllerCaches {
  return {
    workspaces: () => [],
    apiKeys: () => [],
    mcpSources: () => [],
    dataSources: () => [],
    secret: () => undefined,
    rendered: () => [],
    ...overrides,
  };
}

/** A resolver answering from a table: host → addresses, none for a host not in it. */
export function resolverOf(addresses: Readonly<Record<string, string[]>>): NameResolver {
  return (host) => Promise.resolve(addresses[host] ?? []);
}

const logger = createPinoLogger({ level: 'silent' });

/** A controller over `caches` writing into a fresh RecordingWriter, for the gateway namespace `agw`;
 * `deps` adds the policy, resolver, events or clock a test needs. */
export function controllerWith(
  caches: Partial<ControllerCaches>,
  deps: Partial<Omit<WorkspaceControllerDeps, 'caches' | 'writer'>> = {},
): { controller: WorkspaceController; writer: RecordingWriter } {
  const writer = new RecordingWriter();
  const controller = new WorkspaceController({
    caches: controllerCaches(caches),
    writer,
    gatewayNamespace: 'agw',
    logger,
    ...deps,
  });
  return { controller, writer };
}
