// Test access to the run's real kube-apiserver (started by test/infra/kube-global-setup.ts):
// kubectl with the run's kubeconfig, a client-node KubeConfig, a fresh namespace per test file, the
// custom resources' common reads (Ready condition, issued key), and the config plane as deployed:
// real `agent-gateway operator` and `serve --kubernetes` child processes, one way for every kube test.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { inject } from 'vitest';
import { startChild, type Child } from '../bench/child-process.js';
import type { GatewayProcess } from './gateway-processes.js';
import type { TestPolicyFiles } from './test-policy.js';
import { until } from './until.js';

export interface KubectlResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export function kubeconfigPath(): string {
  return inject('kubeconfig');
}

export function kubeConfig(): KubeConfig {
  const config = new KubeConfig();
  config.loadFromFile(kubeconfigPath());
  return config;
}

/** Runs kubectl against the test apiserver; never throws on a non-zero exit. */
export function kubectl(args: readonly string[], input?: string): Promise<KubectlResult> {
  return new Promise((resolve) => {
    const child = execFile(
      join(inject('kubeBin'), 'kubectl'),
      ['--kubeconfig', kubeconfigPath(), ...args],
      { maxBuffer: 16 << 20 },
      (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : Number(error.code ?? 1), stdout, stderr }),
    );
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** kubectl that must succeed. */
export async function kubectlOk(args: readonly string[], input?: string): Promise<string> {
  const result = await kubectl(args, input);
  if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout;
}

/** A new namespace with a random suffix. */
export async function freshNamespace(prefix: string): Promise<string> {
  const name = `${prefix}-${randomBytes(3).toString('hex')}`;
  await kubectlOk(['create', 'namespace', name]);
  return name;
}

/** A custom resource of this project's API group, as a plain object for a List. */
export function customResource(
  kind: string,
  name: string,
  spec: Record<string, unknown>,
): Record<string, unknown> {
  return { apiVersion: 'agentgateway.dev/v1alpha1', kind, metadata: { name }, spec };
}

/** `kubectl apply` of `items` as one List into `namespace`. */
export async function applyList(namespace: string, items: readonly Record<string, unknown>[]): Promise<void> {
  await kubectlOk(
    ['apply', '-n', namespace, '-f', '-'],
    JSON.stringify({ apiVersion: 'v1', kind: 'List', items }),
  );
}

export interface ReadyCondition {
  readonly status: string;
  readonly reason: string;
  readonly message: string;
}

/** Waits until the object has a Ready condition (whatever its status) and returns it. */
export function readyCondition(namespace: string, plural: string, name: string): Promise<ReadyCondition> {
  return until(`${plural}/${name} to have a Ready condition`, async () => {
    const out = await kubectlOk(['get', plural, name, '-n', namespace, '-o', 'json']);
    const status = (JSON.parse(out) as { status?: { conditions?: { type: string }[] } }).status;
    return status?.conditions?.find((c) => c.type === 'Ready') as ReadyCondition | undefined;
  });
}

export interface RenderedConfigMap {
  readonly metadata: { readonly name: string };
  readonly data: Record<string, string>;
}

/** The ConfigMaps the operator rendered for `workspace` into the gateway namespace. */
export async function renderedConfigMaps(
  gatewayNamespace: string,
  workspace: string,
): Promise<RenderedConfigMap[]> {
  const out = await kubectlOk([
    'get',
    'configmaps',
    '-n',
    gatewayNamespace,
    '-l',
    `agentgateway.dev/workspace=${workspace}`,
    '-o',
    'json',
  ]);
  return (JSON.parse(out) as { items: RenderedConfigMap[] }).items;
}

/** The key the operator issued for an ApiKey: waits for status.secretName, then reads the Secret.
 * `run` is kubectl that must succeed; a test on a control plane of its own passes its own. */
export async function readIssuedKey(
  namespace: string,
  apiKey: string,
  run: (args: readonly string[]) => Promise<string> = kubectlOk,
): Promise<string> {
  const secretName = await until(`${apiKey} status.secretName`, async () => {
    const out = await run(['get', 'apikey', apiKey, '-n', namespace, '-o', 'jsonpath={.status.secretName}']);
    return out.trim() === '' ? undefined : out.trim();
  });
  const encoded = await run(['get', 'secret', secretName, '-n', namespace, '-o', 'jsonpath={.data.key}']);
  return Buffer.from(encoded, 'base64').toString('utf8');
}

/** The environment that turns on an operator's Prometheus metrics on `port`, as the chart's otel
 * values would (no trace collector in tests). */
export function operatorMetricsEnv(port: number): NodeJS.ProcessEnv {
  return {
    ...process.env,
    OTEL_SDK_DISABLED: 'false',
    OTEL_TRACES_SAMPLER: 'always_off',
    OTEL_EXPORTER_PROMETHEUS_HOST: '127.0.0.1',
    OTEL_EXPORTER_PROMETHEUS_PORT: String(port),
  };
}

interface ProcessOptions {
  /** Default: the run's kubeconfig. */
  readonly kubeconfig?: string;
  /** Default: warn. */
  readonly logLevel?: string;
  /** More flags (e.g. `--scope namespace`, `--health-port 0`). */
  readonly extraArgs?: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
}

export interface OperatorOptions extends ProcessOptions {
  readonly gatewayNamespace: string;
  readonly policyPath: string;
  /** The leader-election identity; default: the operator's own (the host name). */
  readonly identity?: string;
}

/** A real `agent-gateway operator` process, resolved once it logs that it is watching. */
export function startOperator(options: OperatorOptions): Promise<Child> {
  return startChild(
    [
      'bin/agent-gateway.js',
      'operator',
      '--gateway-namespace',
      options.gatewayNamespace,
      '--policy',
      options.policyPath,
      ...(options.identity === undefined ? [] : ['--identity', options.identity]),
      ...commonArgs(options),
    ],
    /watching/,
    'stderr',
    options.env,
  );
}

export interface KubeGatewayOptions extends ProcessOptions {
  /** The namespace the operator renders into (the gateway's Kubernetes config source). */
  readonly namespace: string;
  /** The admin's base config file (test-policy.ts writes one). */
  readonly baseConfigPath: string;
}

/** A real `agent-gateway serve --kubernetes` process on a port the OS picks. */
export async function startKubeGateway(options: KubeGatewayOptions): Promise<GatewayProcess> {
  const child = await startChild(
    [
      'bin/agent-gateway.js',
      'serve',
      '--kubernetes',
      '--namespace',
      options.namespace,
      '--config',
      options.baseConfigPath,
      '--port',
      '0',
      ...commonArgs(options),
    ],
    /listening on/,
    'stderr',
    options.env,
  );
  return { child, url: /listening on (\S+)/.exec(child.line)?.[1] as string };
}

function commonArgs(options: ProcessOptions): string[] {
  return [
    '--kubeconfig',
    options.kubeconfig ?? kubeconfigPath(),
    '--log-level',
    options.logLevel ?? 'warn',
    ...(options.extraArgs ?? []),
  ];
}

/** The config plane as deployed: one operator rendering into `gatewayNamespace` and `gateways`
 * gateway processes serving what it renders. `operator` is writable for a failover test that
 * replaces it. */
export interface OperatorAndGateways {
  operator: Child;
  readonly gateways: readonly GatewayProcess[];
  /** Stops the gateways, then the operator. */
  stop(): Promise<void>;
}

export async function startOperatorAndGateways(options: {
  readonly gatewayNamespace: string;
  readonly policy: TestPolicyFiles;
  readonly gateways: number;
  readonly identity?: string;
  readonly kubeconfig?: string;
  readonly logLevel?: string;
}): Promise<OperatorAndGateways> {
  const shared = {
    ...(options.kubeconfig === undefined ? {} : { kubeconfig: options.kubeconfig }),
    ...(options.logLevel === undefined ? {} : { logLevel: options.logLevel }),
  };
  const operator = await startOperator({
    gatewayNamespace: options.gatewayNamespace,
    policyPath: options.policy.policyPath,
    ...(options.identity === undefined ? {} : { identity: options.identity }),
    ...shared,
  });
  const gateways: GatewayProcess[] = [];
  try {
    for (let i = 0; i < options.gateways; i += 1)
      gateways.push(
        await startKubeGateway({
          namespace: options.gatewayNamespace,
          baseConfigPath: options.policy.baseConfigPath,
          ...shared,
        }),
      );
  } catch (error) {
    // A half-started plane would outlive the test file: stop what did start.
    await Promise.all(gateways.map((g) => g.child.stop()));
    await operator.stop();
    throw error;
  }
  const plane: OperatorAndGateways = {
    operator,
    gateways,
    async stop() {
      await Promise.all(gateways.map((g) => g.child.stop()));
      await plane.operator.stop();
    },
  };
  return plane;
}
