// McpSource spec.run decided (issue 40, D25): the admin's policy.workloads and policy.network bound
// it, the operator's defaults complete it, and the result is either a refusal condition (nothing is
// rendered, and an existing workload is removed) or a RunPlan for workload-render.ts and for the
// gateways' source. Pure: the token is minted by the controller, the Secrets are read through
// the plan input.
import type { WorkloadPolicy } from '../../../gateway/config/index.js';
import {
  PRIVATE_CIDRS,
  cidrContains,
  describeDenial,
  type ReachPolicy,
} from '../../../gateway/reach/index.js';
import { parseCidr } from '../../../gateway/config/index.js';
import type { McpRun } from '../../api/v1alpha1/index.js';
import { parseQuantity, smallerQuantity } from './quantity.js';
import type { ReadyCondition } from './ready-condition.js';
import type { SecretKeyRef } from './resource-views.js';

/** Where the bridge listens in a stdio server's pod (and the path it serves MCP on). */
export const BRIDGE_PORT = 8080;
export const BRIDGE_PATH = '/mcp';
const DEFAULT_HTTP_PORT = 8080;
const DEFAULT_HTTP_PATH = '/mcp';
const DEFAULT_REQUESTS = { cpu: '50m', memory: '64Mi' } as const;
const DEFAULT_LIMITS = { cpu: '500m', memory: '256Mi' } as const;

/** What the operator knows about its installation that the rendering needs. */
export interface WorkloadSettings {
  /** The operator's own image, which carries the bridge at /usr/local/bin/agw-bridge. */
  readonly bridgeImage: string;
  /** Where the gateways run, and their pods' labels: the only ingress a server accepts. */
  readonly gatewayNamespace: string;
  readonly gatewayPodLabels: Readonly<Record<string, string>>;
  /** The cluster's DNS domain (cluster.local). */
  readonly clusterDomain: string;
  /** Where the gateways ask the operator to wake a source scaled to zero
   * (`http://<operator wake Service>:<port>`); empty: scaleToZero is refused (WakeNotConfigured). */
  readonly wakeUrl?: string;
}

/** What the plan needs to decide spec.run. */
export interface WorkloadContext {
  readonly settings: WorkloadSettings;
  readonly policy: WorkloadPolicy;
  /** The compiled reach policy, for egress CIDRs; absent: only policy.workloads decides. */
  readonly reach?: ReachPolicy;
  /** A Secret of the tenant namespace (plan-input.ts's SecretRead; not imported: it imports us). */
  readSecret(ref: SecretKeyRef): { readonly value: string } | { readonly missing: 'secret' | 'key' };
  /** Epoch ms the idle periods of scaleToZero are measured against (default: Date.now()). */
  readonly now?: number;
}

/** spec.run.scaleToZero decided: whether the workload sleeps now, and when that next changes. */
export interface ScaleToZeroPlan {
  readonly idleAfterMs: number;
  readonly wakeTimeoutMs: number;
  /** Where the gateways ask the operator to wake this source. */
  readonly wakeUrl: string;
  /** Idle for at least idleAfterMs since the last call (or since creation): zero replicas. */
  readonly asleep: boolean;
  /** While awake: ms until it falls asleep without another call (the controller requeues then). */
  readonly sleepsInMs: number | undefined;
}

const DEFAULT_WAKE_TIMEOUT_S = 120;

/** spec.run with every default filled in and every bound checked. */
export interface RunPlan {
  readonly source: string;
  readonly namespace: string;
  readonly workspace: string;
  readonly ownerUid: string | undefined;
  readonly image: string;
  readonly transport: 'stdio' | 'streamable-http';
  readonly command: readonly string[] | undefined;
  readonly args: readonly string[];
  readonly port: number;
  readonly path: string;
  readonly env: NonNullable<McpRun['env']>;
  readonly requests: { readonly cpu: string; readonly memory: string };
  readonly limits: { readonly cpu: string; readonly memory: string };
  readonly replicas: number;
  readonly egress: readonly {
    readonly cidr: string;
    readonly ports: readonly { port: number; protocol: 'TCP' | 'UDP' }[];
  }[];
  readonly writableVolume: { readonly mountPath: string; readonly sizeLimit: string } | undefined;
  readonly scaleToZero: ScaleToZeroPlan | undefined;
  readonly settings: WorkloadSettings;
}

/** The names of a source's workload objects: Deployment, Service and NetworkPolicy share one. */
export function workloadName(source: string): string {
  return `mcp-${source}`;
}

export function tokenSecretName(source: string): string {
  return `mcp-${source}-token`;
}

/** The Service host the gateways dial. */
export function serviceHost(source: string, namespace: string, settings: WorkloadSettings): string {
  return `${workloadName(source)}.${namespace}.svc.${settings.clusterDomain}`;
}

const refuse = (reason: string, message: string): ReadyCondition => ({ ready: false, reason, message });

/** An image reference with its registry spelled out (docker.io/library/… for a bare name), as
 * policy.workloads.allowedImages prefixes are matched against it. */
export function normaliseImage(image: string): string {
  const first = image.split('/')[0] ?? '';
  const named = image.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost');
  if (named) return image;
  return image.includes('/') ? `docker.io/${image}` : `docker.io/library/${image}`;
}

export function planRun(
  resource: {
    readonly metadata: {
      readonly name: string;
      readonly namespace: string;
      readonly uid?: string;
      readonly creationTimestamp?: string | Date;
    };
    readonly spec: { readonly workspaceRef: { readonly name: string } };
    readonly status?: { readonly lastActiveTime?: string };
  },
  run: McpRun,
  context: WorkloadContext,
): RunPlan | ReadyCondition {
  const { policy } = context;
  if (policy.allowedImages.length === 0)
    return refuse(
      'WorkloadsNotAllowed',
      'spec.run: the admin policy allows no MCP servers to run in the cluster (policy.workloads.allowedImages is empty); use url',
    );
  const image = normaliseImage(run.image);
  if (!policy.allowedImages.some((prefix) => image.startsWith(prefix)))
    return refuse(
      'ImageNotAllowed',
      `spec.run.image: ${run.image} is not under any image prefix the admin policy allows (policy.workloads.allowedImages: ${policy.allowedImages.join(', ')})`,
    );
  if (policy.requireDigest && !/@sha256:[a-f0-9]{64}$/.test(run.image))
    return refuse(
      'ImageNotAllowed',
      'spec.run.image: the admin policy requires images pinned by digest (@sha256:...) (policy.workloads.requireDigest)',
    );
  const replicas = run.replicas ?? 1;
  if (replicas > policy.maxReplicas)
    return refuse(
      'ReplicasOverLimit',
      `spec.run.replicas: ${replicas} is more than the admin policy allows (policy.workloads.maxReplicas: ${policy.maxReplicas})`,
    );
  const resources = planResources(run, policy);
  if ('ready' in resources) return resources;
  const egress = planEgress(run, resource.metadata.namespace, resource.spec.workspaceRef.name, context);
  if ('ready' in egress) return egress;
  for (const [index, variable] of (run.env ?? []).entries()) {
    if (variable.secretKeyRef === undefined) continue;
    const read = context.readSecret(variable.secretKeyRef);
    if ('missing' in read)
      return read.missing === 'secret'
        ? refuse(
            'SecretNotFound',
            `Secret ${variable.secretKeyRef.name} (spec.run.env[${index}]) was not found in this namespace`,
          )
        : refuse(
            'SecretKeyNotFound',
            `Secret ${variable.secretKeyRef.name} has no key ${variable.secretKeyRef.key} (spec.run.env[${index}])`,
          );
  }
  const stdio = run.transport === 'stdio';
  if (stdio && (run.command === undefined || run.command.length === 0))
    return refuse('InvalidSpec', 'spec.run.command: is required when run.transport is stdio');
  if (context.settings.bridgeImage === '')
    return refuse(
      'BridgeNotConfigured',
      'spec.run: a workload needs the bridge (in front of a stdio server, or checking the token for an HTTP one), and the operator was started without --bridge-image (the cluster admin sets it; the Helm chart does)',
    );
  const wakeUrl = context.settings.wakeUrl ?? '';
  if (run.scaleToZero !== undefined && wakeUrl === '')
    return refuse(
      'WakeNotConfigured',
      'spec.run.scaleToZero: the operator was started without --wake-url, so no gateway could wake the server once it sleeps (the cluster admin sets it; the Helm chart does)',
    );
  return {
    source: resource.metadata.name,
    namespace: resource.metadata.namespace,
    workspace: resource.spec.workspaceRef.name,
    ownerUid: resource.metadata.uid,
    image: run.image,
    transport: run.transport,
    command: run.command,
    args: run.args ?? [],
    port: stdio ? BRIDGE_PORT : (run.port ?? DEFAULT_HTTP_PORT),
    path: stdio ? BRIDGE_PATH : (run.path ?? DEFAULT_HTTP_PATH),
    env: run.env ?? [],
    ...resources,
    replicas,
    egress: egress.rules,
    writableVolume: run.permissions?.writableVolume,
    scaleToZero:
      run.scaleToZero === undefined
        ? undefined
        : planScaleToZero(run.scaleToZero, resource, wakeUrl, context.now ?? Date.now()),
    settings: context.settings,
  };
}

/** Asleep once idleAfterSeconds have passed since the last reported call, or since creation when no
 * call was ever reported (a new source starts awake, so its first call is not a cold start). */
export function planScaleToZero(
  spec: NonNullable<McpRun['scaleToZero']>,
  resource: {
    readonly metadata: { readonly creationTimestamp?: string | Date };
    readonly status?: { readonly lastActiveTime?: string };
  },
  wakeUrl: string,
  now: number,
): ScaleToZeroPlan {
  const idleAfterMs = spec.idleAfterSeconds * 1000;
  const stamps = [resource.status?.lastActiveTime, resource.metadata.creationTimestamp]
    .map((stamp) => (stamp === undefined ? NaN : new Date(stamp).getTime()))
    .filter((ms) => Number.isFinite(ms));
  // No stamp at all (a resource not yet stored): awake, measured from now.
  const lastActive = stamps.length === 0 ? now : Math.max(...stamps);
  const idleFor = Math.max(0, now - lastActive);
  const asleep = idleFor >= idleAfterMs;
  return {
    idleAfterMs,
    wakeTimeoutMs: (spec.wakeTimeoutSeconds ?? DEFAULT_WAKE_TIMEOUT_S) * 1000,
    wakeUrl,
    asleep,
    sleepsInMs: asleep ? undefined : idleAfterMs - idleFor,
  };
}

function planResources(
  run: McpRun,
  policy: WorkloadPolicy,
): Pick<RunPlan, 'requests' | 'limits'> | ReadyCondition {
  const limits = {
    cpu: run.resources?.limits?.cpu ?? DEFAULT_LIMITS.cpu,
    memory: run.resources?.limits?.memory ?? DEFAULT_LIMITS.memory,
  };
  const bounds = { cpu: policy.maxCpu, memory: policy.maxMemory };
  for (const kind of ['cpu', 'memory'] as const)
    if ((parseQuantity(limits[kind]) ?? Infinity) > (parseQuantity(bounds[kind]) ?? 0))
      return refuse(
        'ResourcesOverLimit',
        `spec.run.resources.limits.${kind}: ${limits[kind]} is more than the admin policy allows (policy.workloads.max${kind === 'cpu' ? 'Cpu' : 'Memory'}: ${bounds[kind]})`,
      );
  const requests = {
    cpu: run.resources?.requests?.cpu ?? smallerQuantity(DEFAULT_REQUESTS.cpu, limits.cpu),
    memory: run.resources?.requests?.memory ?? smallerQuantity(DEFAULT_REQUESTS.memory, limits.memory),
  };
  for (const kind of ['cpu', 'memory'] as const)
    if ((parseQuantity(requests[kind]) ?? Infinity) > (parseQuantity(limits[kind]) ?? 0))
      return refuse(
        'InvalidSpec',
        `spec.run.resources.requests.${kind}: ${requests[kind]} is more than its limit ${limits[kind]}`,
      );
  return { requests, limits };
}

function planEgress(
  run: McpRun,
  namespace: string,
  workspace: string,
  context: WorkloadContext,
): { readonly rules: RunPlan['egress'] } | ReadyCondition {
  const rules: { cidr: string; ports: { port: number; protocol: 'TCP' | 'UDP' }[] }[] = [];
  for (const [index, rule] of (run.permissions?.egress ?? []).entries()) {
    const field = `spec.run.permissions.egress[${index}].cidr`;
    if (parseCidr(rule.cidr) === undefined)
      return refuse('InvalidSpec', `${field}: must be an IPv4 or IPv6 CIDR block, e.g. 203.0.113.0/24`);
    if (
      context.policy.externalEgress === 'deny' &&
      !PRIVATE_CIDRS.some((block) => cidrContains(block, rule.cidr))
    )
      return refuse(
        'EgressNotAllowed',
        `${field}: ${rule.cidr} leaves the private ranges, and the admin policy keeps servers inside them (policy.workloads.externalEgress: deny)`,
      );
    const decision = context.reach?.decideCidr({ namespace, workspace }, rule.cidr);
    if (decision !== undefined && !decision.allowed)
      return refuse(
        'EgressNotAllowed',
        `${field}: ${rule.cidr} is not allowed by the tenant policy: it includes ${describeDenial(decision.reason)}`,
      );
    rules.push({
      cidr: rule.cidr,
      ports: rule.ports.map((p) => ({ port: p.port, protocol: p.protocol ?? 'TCP' })),
    });
  }
  return { rules };
}
