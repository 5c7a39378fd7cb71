// A real kube-apiserver + etcd on free loopback ports in a fresh directory (kube-test-env.sh), with
// this project's CRDs installed. The run shares one (kube-global-setup.ts); a test that stops the
// apiserver on purpose starts its own.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port.js';

const run = promisify(execFile);
const SCRIPT = 'test/infra/kube-test-env.sh';

export interface ControlPlane {
  readonly kubeconfig: string;
  readonly bin: string;
  /** Stops only the apiserver; etcd and every object stay. */
  apiserverStop(): Promise<void>;
  apiserverStart(): Promise<void>;
  stop(): Promise<void>;
}

export function kubeBinDir(): string {
  return join(process.env['KUBE_TEST_BIN'] ?? join(homedir(), '.cache', 'kube-test-env'), 'bin');
}

/** A control plane of its own on free ports. The ports are free when picked but not reserved, so a
 * process started meanwhile can take one (seen as "kube-apiserver exited" with other control planes
 * starting on the machine): a start that fails is tried once more on new ports. */
export async function startControlPlane(): Promise<ControlPlane> {
  try {
    return await startControlPlaneOnce();
  } catch (first) {
    process.stderr.write(
      `control plane start failed, retrying on new ports: ${String(first).slice(0, 2000)}\n`,
    );
    return startControlPlaneOnce();
  }
}

async function startControlPlaneOnce(): Promise<ControlPlane> {
  const bin = kubeBinDir();
  if (!existsSync(join(bin, 'kube-apiserver')))
    throw new Error(
      'the test control plane is not built: run `bash test/infra/ensure-kube.sh` (npm test does)',
    );
  const dir = await mkdtemp(join(tmpdir(), 'agw-kube-'));
  const env = {
    ...process.env,
    KUBE_TEST_DIR: dir,
    KUBE_TEST_PORT: String(await freePort()),
    KUBE_TEST_ETCD_PORT: String(await freePort()),
    KUBE_TEST_ETCD_PEER_PORT: String(await freePort()),
  };
  const script = (command: string) => run('bash', [SCRIPT, command], { env, maxBuffer: 1 << 20 });
  const stop = async () => {
    await script('stop').catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  };
  const kubeconfig = join(dir, 'kubeconfig');
  const kubectl = (...args: string[]) => run(join(bin, 'kubectl'), ['--kubeconfig', kubeconfig, ...args]);
  try {
    await script('start');
    await kubectl('apply', '--server-side', '-f', 'crds/');
    await kubectl(
      'wait',
      '--for=condition=Established',
      '--timeout=60s',
      'crd',
      '-l',
      'app.kubernetes.io/part-of=agent-gateway',
    );
  } catch (error) {
    // No teardown is registered for a setup that failed: do not leave apiserver and etcd behind.
    await stop();
    throw error;
  }
  return {
    kubeconfig,
    bin,
    apiserverStop: async () => {
      await script('apiserver-stop');
    },
    apiserverStart: async () => {
      await script('apiserver-start');
    },
    stop,
  };
}
