// An McpSource with spec.run as the gateways see it (D25): decided by workload-plan.ts, then an
// ordinary streamable-http source whose url is the rendered Service, marked `workload` so the
// gateways' network guard lets it dial exactly that Service, with the minted token as its bearer
// credential, which the bridge checks in front of the server: as its parent for a stdio server, as a
// proxy sidecar for an image that serves HTTP itself (the NetworkPolicy alone would not do: a tenant
// can repoint its own Service, e.g. as an ExternalName to another tenant's, and the gateways are let
// into every workload).
import { credentialDataKey, credentialSecretName } from '../../../gateway/config/kube/index.js';
import { DEFAULT_WORKLOAD_POLICY } from '../../../gateway/config/index.js';
import type { McpRun } from '../../api/v1alpha1/index.js';
import type { PlanInput } from './plan-input.js';
import type { ReadyCondition } from './ready-condition.js';
import type { McpSourceView } from './resource-views.js';
import { planRun, serviceHost, workloadName, type RunPlan } from './workload-plan.js';

export type { RunPlan } from './workload-plan.js';

/** The wake endpoint of one source on the operator (runtime/wake-server.ts). */
export function wakeEndpoint(base: string, namespace: string, source: string): string {
  return `${base.replace(/\/+$/, '')}/wake/${encodeURIComponent(namespace)}/${encodeURIComponent(source)}`;
}

/** The credential field a minted token is filed under in the workspace's rendered Secret. */
export const WORKLOAD_TOKEN_FIELD = 'workloadToken';

export interface PlannedRunSource {
  readonly condition: ReadyCondition;
  /** Absent when refused. */
  readonly render?: { readonly document: Record<string, unknown>; readonly plan: RunPlan };
}

const NO_SETTINGS = {
  bridgeImage: '',
  gatewayNamespace: '',
  gatewayPodLabels: {},
  clusterDomain: 'cluster.local',
};

export function planRunSource(
  resource: McpSourceView,
  run: McpRun,
  input: Pick<PlanInput, 'workloads' | 'readSecret'>,
  credentials: Map<string, string>,
): PlannedRunSource {
  const context = {
    settings: NO_SETTINGS,
    policy: DEFAULT_WORKLOAD_POLICY,
    ...input.workloads?.context,
    readSecret: input.readSecret,
  };
  const plan = planRun(resource, run, context);
  if ('ready' in plan) return { condition: plan };
  const name = resource.metadata.name;
  const host = serviceHost(name, plan.namespace, plan.settings);
  const {
    workspaceRef: _ref,
    run: _run,
    credential: _credential,
    transport: _transport,
    url: _url,
    workload: _mark,
    ...rest
  } = resource.spec;
  const document: Record<string, unknown> = {
    ...rest,
    name,
    transport: 'streamable-http',
    url: `http://${host}:${plan.port}${plan.path}`,
    workload: {
      host,
      port: plan.port,
      ...(plan.scaleToZero === undefined
        ? {}
        : {
            wake: {
              url: wakeEndpoint(plan.scaleToZero.wakeUrl, plan.namespace, name),
              timeoutMs: plan.scaleToZero.wakeTimeoutMs,
              // A gateway reports calls about four times per idle period (at most every 30 s).
              touchIntervalMs: Math.min(30_000, Math.max(1000, Math.floor(plan.scaleToZero.idleAfterMs / 4))),
            },
          }),
    },
  };
  // A hop that wakes the server waits for it first: its time-outs grow by the wake time-out.
  if (plan.scaleToZero !== undefined)
    document['timeouts'] = wokenTimeouts(rest['timeouts'], plan.scaleToZero);
  const token = input.workloads?.tokens.get(name);
  if (token === undefined)
    return {
      condition: { ready: false, reason: 'TokenPending', message: 'the server token is being minted' },
    };
  const dataKey = credentialDataKey(name, WORKLOAD_TOKEN_FIELD, token);
  credentials.set(dataKey, token);
  document['credential'] = {
    type: 'bearer',
    secret: { kubernetesSecret: { name: credentialSecretName(plan.workspace), key: dataKey } },
  };
  const where = `Deployment ${workloadName(name)} in this namespace, reached at ${host}:${plan.port}`;
  const sleep =
    plan.scaleToZero === undefined
      ? ''
      : plan.scaleToZero.asleep
        ? '; scaled to zero while idle: the next call wakes it'
        : `; scales to zero after ${Math.round(plan.scaleToZero.idleAfterMs / 1000)} s without a call`;
  return {
    condition: {
      ready: true,
      reason: 'Rendered',
      message:
        plan.transport === 'stdio'
          ? `served by the gateways; the server runs as ${where} behind the bridge, which checks the gateways' token${sleep}`
          : `served by the gateways; the server runs as ${where} behind the bridge's proxy sidecar, which checks the gateways' token${sleep}`,
    },
    render: { document, plan },
  };
}

const TIMEOUT_DEFAULTS = { connectMs: 10_000, listMs: 15_000, callMs: 60_000 } as const;
const TIMEOUT_MAXIMA = { connectMs: 300_000, listMs: 300_000, callMs: 3_600_000 } as const;

function wokenTimeouts(
  given: unknown,
  sleep: NonNullable<RunPlan['scaleToZero']>,
): Record<keyof typeof TIMEOUT_DEFAULTS, number> {
  const set = (typeof given === 'object' && given !== null ? given : {}) as Partial<
    Record<keyof typeof TIMEOUT_DEFAULTS, number>
  >;
  const grown = (key: keyof typeof TIMEOUT_DEFAULTS) =>
    Math.min(TIMEOUT_MAXIMA[key], (set[key] ?? TIMEOUT_DEFAULTS[key]) + sleep.wakeTimeoutMs);
  return { connectMs: grown('connectMs'), listMs: grown('listMs'), callMs: grown('callMs') };
}
