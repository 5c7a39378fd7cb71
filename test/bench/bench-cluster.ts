// A real kube-apiserver + etcd (test/infra/control-plane.ts) with `agent-gateway operator` and
// `serve --kubernetes` processes for the benchmarks that need them (kube-bench, memory-bench).
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { renderWorkspace } from '../../gateway/config/kube/index.js';
import type { ControlPlane } from '../infra/control-plane.js';
import { startChild, type Child } from './child-process.js';
import { READY_JSONPATH, readyCount, workspacesWithKeys } from '../support/tenant-objects.js';

const run = promisify(execFile);

export async function until(probe: () => Promise<boolean>, timeoutMs = 120_000, everyMs = 10): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe().catch(() => false))) {
    if (Date.now() > deadline) throw new Error('benchmark step timed out');
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export class Cluster {
  private readonly children: Child[] = [];
  constructor(readonly plane: ControlPlane) {}

  async kubectl(args: string[], input?: string): Promise<string> {
    const child = run(join(this.plane.bin, 'kubectl'), ['--kubeconfig', this.plane.kubeconfig, ...args], {
      maxBuffer: 256 << 20,
    });
    if (input !== undefined) child.child.stdin?.end(input);
    return (await child).stdout;
  }

  /** Node flags (e.g. `--import` of the heap reporter) and environment for the next processes. */
  nodeArgs: readonly string[] = [];
  env: NodeJS.ProcessEnv = process.env;

  async operator(): Promise<{ pid: number }> {
    const child = await startChild(
      [
        ...this.nodeArgs,
        'bin/agent-gateway.js',
        'operator',
        '--gateway-namespace',
        'agw',
        '--kubeconfig',
        this.plane.kubeconfig,
        '--log-level',
        'silent',
      ],
      /watching/,
      'stderr',
      this.env,
    );
    this.children.push(child);
    return { pid: child.process.pid as number };
  }

  async gateway(): Promise<{ url: string; pid: number }> {
    const child = await startChild(
      [
        ...this.nodeArgs,
        'bin/agent-gateway.js',
        'serve',
        '--kubernetes',
        '--namespace',
        'agw',
        '--kubeconfig',
        this.plane.kubeconfig,
        '--port',
        '0',
        '--log-level',
        'silent',
      ],
      /listening on/,
      'stderr',
      this.env,
    );
    this.children.push(child);
    return { url: /listening on (\S+)/.exec(child.line)?.[1] as string, pid: child.process.pid as number };
  }

  async issuedKey(namespace: string, name: string): Promise<string> {
    let secret = '';
    await until(async () => {
      secret = await this.kubectl([
        'get',
        'apikey',
        name,
        '-n',
        namespace,
        '-o',
        'jsonpath={.status.secretName}',
      ]);
      return secret !== '';
    });
    const data = await this.kubectl(['get', 'secret', secret, '-n', namespace, '-o', 'jsonpath={.data.key}']);
    return Buffer.from(data, 'base64').toString('utf8');
  }

  /** Applies `workspaces` Workspaces named ws-<w>, each with `keysEach` ApiKeys key-<w>-<k>, in
   * `namespace` with one server-side apply. */
  async applyWorkspacesWithKeys(namespace: string, workspaces: number, keysEach: number): Promise<void> {
    await this.kubectl(
      ['apply', '--server-side', '-n', namespace, '-f', '-'],
      JSON.stringify(workspacesWithKeys(workspaces, keysEach)),
    );
  }

  /** Waits until `count` ApiKeys in `namespace` report Ready=True. */
  async apiKeysReady(namespace: string, count: number): Promise<void> {
    await until(
      async () => {
        const out = await this.kubectl([
          'get',
          'apikeys',
          '-n',
          namespace,
          '-o',
          `jsonpath=${READY_JSONPATH}`,
        ]);
        return readyCount(out) === count;
      },
      600_000,
      500,
    );
  }

  async stop(): Promise<void> {
    await Promise.all(this.children.map((c) => c.stop()));
    await this.plane.stop();
  }
}

/** Rendered parts as Kubernetes objects in the gateway namespace (Secret data base64-encoded). */
export function asObjects(parts: ReturnType<typeof renderWorkspace>['parts']): unknown[] {
  return parts.map((part) => ({
    apiVersion: 'v1',
    kind: part.kind,
    metadata: { name: part.name, namespace: 'agw', labels: part.labels, annotations: part.annotations },
    ...(part.kind === 'Secret'
      ? {
          type: 'Opaque',
          data: Object.fromEntries(
            Object.entries(part.data).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
          ),
        }
      : { data: part.data }),
  }));
}
