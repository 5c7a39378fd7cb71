// What the pod tests need from the cluster under test, whichever made it: kubectl and helm with its
// kubeconfig, the images to run, a URL for a Service from this process, and the two node-level
// actions the tests take (freezing a container's process, finding a pod's process). The node mode
// (kube-cluster.sh) reaches ClusterIPs directly through kube-proxy's rules on this machine; the
// external mode (kind) reaches a NodePort on the kind node's address.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { inject } from 'vitest';

export interface ClusterImages {
  readonly gateway: string;
  readonly redis: string;
  readonly postgres: string;
  /** Published MCP servers, unmodified (test/infra/published-server-images.sh). */
  readonly published: PublishedServerImages;
}

export interface PublishedServerImages {
  /** npm @modelcontextprotocol/server-memory, stdio. */
  readonly memory: string;
  /** PyPI mcp-server-time, stdio. */
  readonly time: string;
  /** npm @modelcontextprotocol/server-everything, Streamable HTTP on port 3001. */
  readonly everything: string;
}

export interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function tool(name: 'kubectl' | 'helm'): string {
  const bin = inject('kubeBin');
  return bin === '' ? name : join(bin, name);
}

function exec(file: string, args: readonly string[], input?: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(
      file,
      args,
      { maxBuffer: 64 << 20, env: { ...process.env, KUBECONFIG: inject('kubeconfig') } },
      (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : Number(error.code ?? 1), stdout, stderr }),
    );
    if (input !== undefined) child.stdin?.end(input);
  });
}

export const kubectl = (args: readonly string[], input?: string) => exec(tool('kubectl'), args, input);
export const helm = (args: readonly string[]) => exec(tool('helm'), args);

export async function ok(result: Promise<Run>, what: string): Promise<string> {
  const done = await result;
  if (done.code !== 0) throw new Error(`${what} failed (${done.code}): ${done.stderr.trim()}`);
  return done.stdout;
}

export const kubectlOk = (args: readonly string[], input?: string) =>
  ok(kubectl(args, input), `kubectl ${args.join(' ')}`);
export const helmOk = (args: readonly string[]) => ok(helm(args), `helm ${args.join(' ')}`);

export function images(): ClusterImages {
  return inject('clusterImages');
}

export function mode(): 'node' | 'external' {
  return inject('clusterMode');
}

/** Polls `check` until it returns a value (not undefined) or the time runs out. */
export async function waitFor<T>(
  what: string,
  timeoutMs: number,
  check: () => Promise<T | undefined>,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${last instanceof Error ? `: ${last.message}` : ''}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

interface PodJson {
  metadata: { name: string; deletionTimestamp?: string; labels?: Record<string, string> };
  status: {
    phase?: string;
    podIP?: string;
    conditions?: { type: string; status: string }[];
    containerStatuses?: { name: string; ready: boolean; restartCount: number; containerID?: string }[];
  };
}

export async function pods(namespace: string, selector?: string): Promise<PodJson[]> {
  const args = ['-n', namespace, 'get', 'pods', '-o', 'json'];
  if (selector !== undefined) args.push('-l', selector);
  return (JSON.parse(await kubectlOk(args)) as { items: PodJson[] }).items;
}

export function podReady(pod: PodJson): boolean {
  return (
    pod.metadata.deletionTimestamp === undefined &&
    pod.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true
  );
}

/** Waits until every pod of the namespace is Ready (and there are `atLeast` of them). */
export async function allPodsReady(namespace: string, atLeast: number, timeoutMs: number): Promise<number> {
  const t0 = Date.now();
  await waitFor(`${atLeast}+ Ready pods in ${namespace}`, timeoutMs, async () => {
    const list = (await pods(namespace)).filter((p) => p.status.phase !== 'Succeeded');
    return list.length >= atLeast && list.every(podReady) ? true : undefined;
  });
  return Date.now() - t0;
}

/** http://host:port for a Service, reachable from this process. */
export async function serviceUrl(namespace: string, service: string): Promise<string> {
  const svc = JSON.parse(await kubectlOk(['-n', namespace, 'get', 'service', service, '-o', 'json'])) as {
    spec: { clusterIP: string; ports: { port: number; nodePort?: number }[] };
  };
  const port = svc.spec.ports[0];
  if (port === undefined) throw new Error(`service ${service} has no port`);
  if (mode() === 'node') return `http://${svc.spec.clusterIP}:${port.port}`;
  // kind: a NodePort Service beside the chart's, on the node container's address.
  const nodePortName = `${service}-e2e-nodeport`;
  const existing = await kubectl(['-n', namespace, 'get', 'service', nodePortName, '-o', 'json']);
  if (existing.code !== 0) {
    const selector = JSON.parse(
      await kubectlOk(['-n', namespace, 'get', 'service', service, '-o', 'jsonpath={.spec.selector}']),
    ) as Record<string, string>;
    await kubectlOk(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: nodePortName, namespace },
        spec: { type: 'NodePort', selector, ports: [{ port: port.port, targetPort: 'http' }] },
      }),
    );
  }
  const nodePort = await kubectlOk([
    '-n',
    namespace,
    'get',
    'service',
    nodePortName,
    '-o',
    'jsonpath={.spec.ports[0].nodePort}',
  ]);
  const nodeIp = await kubectlOk([
    'get',
    'nodes',
    '-o',
    'jsonpath={.items[0].status.addresses[?(@.type=="InternalIP")].address}',
  ]);
  return `http://${nodeIp.trim()}:${nodePort.trim()}`;
}

/**
 * The pods this process holds established connections to through a Service's ClusterIP, with how
 * many (node mode: the conntrack table of this machine; kind: unknown, an empty map). The churn
 * cases pick their victim from it, so the pod they delete or freeze is one the load is using.
 */
export async function connectionsByPod(namespace: string, service: string): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  if (mode() !== 'node') return counts;
  const clusterIp = (
    await kubectlOk(['-n', namespace, 'get', 'service', service, '-o', 'jsonpath={.spec.clusterIP}'])
  ).trim();
  const table = await ok(exec('conntrack', ['-L', '-p', 'tcp', '--orig-dst', clusterIp]), 'conntrack -L');
  const byIp = new Map((await pods(namespace)).map((p) => [p.status.podIP ?? '', p.metadata.name]));
  for (const line of table.split('\n')) {
    if (!line.includes('ESTABLISHED')) continue;
    const replySource = [...line.matchAll(/src=(\S+)/g)][1]?.[1];
    const pod = replySource === undefined ? undefined : byIp.get(replySource);
    if (pod !== undefined) counts.set(pod, (counts.get(pod) ?? 0) + 1);
  }
  return counts;
}

/** Freezes (SIGSTOP) the main process of a pod's container on its node. */
export async function freezeContainer(namespace: string, pod: string): Promise<void> {
  const id = (
    await kubectlOk([
      '-n',
      namespace,
      'get',
      'pod',
      pod,
      '-o',
      'jsonpath={.status.containerStatuses[0].containerID}',
    ])
  )
    .trim()
    .replace(/^containerd:\/\//, '');
  if (mode() === 'node') {
    const sock = `${process.env['AGW_CLUSTER_DIR'] ?? `/tmp/agw-cluster-${process.getuid?.() ?? 0}`}/containerd/containerd.sock`;
    const tasks = await ok(exec('ctr', ['--address', sock, '-n', 'k8s.io', 'tasks', 'ls']), 'ctr tasks ls');
    const line = tasks.split('\n').find((l) => l.startsWith(id));
    const pid = line?.trim().split(/\s+/)[1];
    if (pid === undefined) throw new Error(`no task for container ${id}`);
    process.kill(Number(pid), 'SIGSTOP');
    return;
  }
  // kind: the node is a container; crictl there knows the container's pid.
  const node = process.env['AGW_E2E_KIND_NODE'] ?? 'agent-gateway-e2e-control-plane';
  const pid = (
    await ok(
      exec('docker', [
        'exec',
        node,
        'crictl',
        'inspect',
        '--output',
        'go-template',
        '--template',
        '{{.info.pid}}',
        id,
      ]),
      'crictl inspect',
    )
  ).trim();
  await ok(exec('docker', ['exec', node, 'kill', '-STOP', pid]), 'kill -STOP');
}

/** `kubectl port-forward` in the background; resolves once it listens. */
export async function portForward(namespace: string, target: string, ports: string): Promise<ChildProcess> {
  const child = spawn(tool('kubectl'), ['-n', namespace, 'port-forward', target, ports], {
    env: { ...process.env, KUBECONFIG: inject('kubeconfig') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`port-forward did not start: ${out}`)), 30_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('Forwarding from')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`port-forward exited ${code}: ${out}`)));
  });
  return child;
}
