// Vitest global setup: one real kube-apiserver + etcd for the whole run (test/infra/kube-test-env.sh),
// on free loopback ports in a fresh directory, with this project's CRDs installed. Test files reach
// it through inject('kubeconfig') (see test/support/kube-harness.ts) and isolate themselves by
// namespace. Stopped when the run ends.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { TestProject } from 'vitest/node';

const run = promisify(execFile);

declare module 'vitest' {
  export interface ProvidedContext {
    kubeconfig: string;
    kubeBin: string;
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const bin = join(process.env['KUBE_TEST_BIN'] ?? join(homedir(), '.cache', 'kube-test-env'), 'bin');
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
  const script = 'test/infra/kube-test-env.sh';
  await run('bash', [script, 'start'], { env, maxBuffer: 1 << 20 });
  const kubeconfig = join(dir, 'kubeconfig');
  await run(join(bin, 'kubectl'), ['--kubeconfig', kubeconfig, 'apply', '--server-side', '-f', 'crds/']);
  await run(join(bin, 'kubectl'), [
    '--kubeconfig',
    kubeconfig,
    'wait',
    '--for=condition=Established',
    '--timeout=60s',
    'crd',
    '-l',
    'app.kubernetes.io/part-of=agent-gateway',
  ]);
  project.provide('kubeconfig', kubeconfig);
  project.provide('kubeBin', bin);
  return async () => {
    await run('bash', [script, 'stop'], { env }).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  };
}
