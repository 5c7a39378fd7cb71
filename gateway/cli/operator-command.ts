// `agent-gateway operator --gateway-namespace N [--scope cluster|namespace] [--kubeconfig PATH]
// [--lease-namespace N] [--identity ID] [--health-port P] [--policy FILE] [--log-level L]`: runs the Kubernetes
// operator (operator/operator-main.ts) until SIGINT/SIGTERM. Several replicas may run; a Lease makes
// exactly one of them reconcile. `--scope namespace` watches only the gateway namespace (a Role
// there is all it needs); `cluster` (the default) watches every namespace. `--policy` is the admin's
// tenant reach policy (YAML, the config contract's `policy` block); without it the defaults apply.
// `--bridge-image` (the operator's own image), `--gateway-selector k=v,...` (the gateway pods'
// labels) and `--cluster-domain` are what McpSource spec.run renders with (D25); `--wake-port`
// serves the scale-to-zero wake endpoint and `--wake-url` is the origin the gateways reach it at
// (its Service), rendered into each scaleToZero source (D25); `--gateway-service-account` lets the
// gateways report pinned tool definitions on the same port (issue 41).
import { applyHeapGrowthSetting } from './heap-growth-setting.js';
import { parseArgs } from 'node:util';
import { runOperator } from '../../operator/operator-main.js';
import { startHealthServer } from '../../operator/runtime/health-server.js';
import { startWakeServer } from '../../operator/runtime/wake-server.js';
import { readFile } from 'node:fs/promises';
import { parseDocument } from 'yaml';
import { DEFAULT_TENANT_POLICY, TenantPolicySchema, formatPath, type TenantPolicy } from '../config/index.js';
// The operator's client-node KubeConfig; a gateway's index.ts never loads client-node (issue 26).
import { loadKubeConfig } from '../config/kube/load-kube-config.js';
import { createPinoLogger, type LogLevel } from '../telemetry/index.js';
import { shutdownTelemetry } from '../telemetry/telemetry-handle.js';
import type { CliIo } from './cli-io.js';
import { COMMAND_USAGE } from './usage.js';

const LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);
const USAGE = COMMAND_USAGE.operator;

export async function operatorCommand(args: string[], io: CliIo): Promise<number> {
  if (!applyHeapGrowthSetting(io)) return 2;
  const { values } = parseArgs({
    args,
    options: {
      'gateway-namespace': { type: 'string' },
      'lease-namespace': { type: 'string' },
      kubeconfig: { type: 'string' },
      identity: { type: 'string' },
      scope: { type: 'string' },
      'health-port': { type: 'string' },
      'health-host': { type: 'string' },
      'log-level': { type: 'string' },
      policy: { type: 'string' },
      'bridge-image': { type: 'string' },
      'gateway-selector': { type: 'string' },
      'cluster-domain': { type: 'string' },
      'wake-port': { type: 'string' },
      'wake-host': { type: 'string' },
      'wake-url': { type: 'string' },
      'gateway-service-account': { type: 'string' },
    },
    strict: true,
  });
  const gatewayNamespace = values['gateway-namespace'] ?? io.env['POD_NAMESPACE'];
  if (gatewayNamespace === undefined) {
    io.err(USAGE);
    return 2;
  }
  const scope = values.scope ?? 'cluster';
  if (scope !== 'cluster' && scope !== 'namespace') {
    io.err('--scope must be cluster or namespace');
    return 2;
  }
  const healthPort = values['health-port'] === undefined ? undefined : Number(values['health-port']);
  if (healthPort !== undefined && (!Number.isInteger(healthPort) || healthPort < 0 || healthPort > 65_535)) {
    io.err('--health-port must be an integer from 0 to 65535');
    return 2;
  }
  const wakePort = values['wake-port'] === undefined ? undefined : Number(values['wake-port']);
  if (wakePort !== undefined && (!Number.isInteger(wakePort) || wakePort < 0 || wakePort > 65_535)) {
    io.err('--wake-port must be an integer from 0 to 65535');
    return 2;
  }
  const wakeUrl = values['wake-url'] ?? '';
  if (wakeUrl !== '' && !/^https?:\/\/[^/?#]+\/?$/.test(wakeUrl)) {
    io.err(
      '--wake-url must be an http(s) origin, e.g. http://agw-operator-wake.agw-system.svc.cluster.local:8083',
    );
    return 2;
  }
  const account = values['gateway-service-account'];
  const accountParts =
    account === undefined ? undefined : /^([a-z0-9-]{1,63})\/([a-z0-9.-]{1,253})$/.exec(account);
  if (account !== undefined && accountParts === null) {
    io.err('--gateway-service-account must be NAMESPACE/NAME, e.g. agw-system/agw-agent-gateway');
    return 2;
  }
  const level = values['log-level'] ?? io.env['LOG_LEVEL'] ?? 'info';
  if (!LEVELS.has(level)) {
    io.err(`--log-level must be one of ${[...LEVELS].join(', ')}`);
    return 2;
  }
  const policy = values.policy === undefined ? DEFAULT_TENANT_POLICY : await readPolicy(values.policy, io);
  if (policy === undefined) return 1;
  const gatewayPodLabels = parseSelector(values['gateway-selector'] ?? 'app.kubernetes.io/component=gateway');
  if (gatewayPodLabels === undefined) {
    io.err('--gateway-selector must be label=value pairs separated by commas');
    return 2;
  }
  const logger = createPinoLogger({ level: level as LogLevel });
  const operator = runOperator({
    policy,
    kubeConfig: loadKubeConfig(values.kubeconfig),
    gatewayNamespace,
    logger,
    ...(scope === 'namespace' ? { watchNamespace: gatewayNamespace } : {}),
    ...(values['lease-namespace'] === undefined ? {} : { leaseNamespace: values['lease-namespace'] }),
    ...(values.identity === undefined ? {} : { identity: values.identity }),
    workloads: {
      bridgeImage: values['bridge-image'] ?? '',
      gatewayPodLabels,
      clusterDomain: values['cluster-domain'] ?? 'cluster.local',
      wakeUrl,
    },
    ...(accountParts === undefined || accountParts === null
      ? {}
      : { gatewayUser: `system:serviceaccount:${accountParts[1]}:${accountParts[2]}` }),
  });
  const wakeServer =
    wakePort === undefined
      ? undefined
      : await startWakeServer(wakePort, values['wake-host'] ?? '0.0.0.0', operator.wake, operator.pins);
  const health =
    healthPort === undefined
      ? undefined
      : await startHealthServer(healthPort, values['health-host'] ?? '0.0.0.0', {
          synced: () => operator.isSynced(),
          isLeader: () => operator.isLeader(),
        });
  const healthAddress = health?.address();
  io.err(
    `agent gateway operator ${operator.identity} watching ${scope === 'namespace' ? `namespace ${gatewayNamespace}` : 'all namespaces'}; rendering into namespace ${gatewayNamespace}` +
      (typeof healthAddress === 'object' && healthAddress !== null
        ? `; probes on port ${healthAddress.port}`
        : ''),
  );
  // The operator serves nothing, and its retry timers are unref'd: without this the process would
  // exit as soon as every watch is down (an apiserver outage) instead of waiting to reconnect.
  const keepAlive = setInterval(() => undefined, 60_000);
  await new Promise<void>((resolve) => {
    const onSignal = () => {
      clearInterval(keepAlive);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
  health?.close();
  wakeServer?.close();
  await operator.stop();
  await shutdownTelemetry();
  io.err('agent gateway operator stopped');
  return 0;
}

/** `k=v,k2=v2` as labels; undefined when a pair is malformed. */
function parseSelector(text: string): Record<string, string> | undefined {
  const labels: Record<string, string> = {};
  for (const pair of text.split(',')) {
    const match = /^([A-Za-z0-9./_-]{1,253})=([A-Za-z0-9._-]{0,63})$/.exec(pair.trim());
    if (match === null) return undefined;
    labels[match[1] as string] = match[2] as string;
  }
  return labels;
}

/** The --policy file: a YAML document of the config contract's `policy` block. */
async function readPolicy(path: string, io: CliIo): Promise<TenantPolicy | undefined> {
  const text = await readFile(path, 'utf8');
  const document = parseDocument(text, { uniqueKeys: true });
  if (document.errors.length > 0) {
    io.err(`${path}: not valid YAML: ${document.errors[0]?.message ?? ''}`);
    return undefined;
  }
  const parsed = TenantPolicySchema.safeParse(document.toJS() ?? {});
  if (!parsed.success) {
    io.err(
      `${path}: invalid policy:\n${parsed.error.issues
        .map((issue) => `  ${formatPath(issue.path) || '(root)'}: ${issue.message}`)
        .join('\n')}`,
    );
    return undefined;
  }
  return parsed.data;
}
