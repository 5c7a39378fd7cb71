// A 410 Gone relists (issue 26: the gateway's own list-watch, kube-list-watch.ts). The run's shared
// apiserver serves watches from its watch cache, which keeps old events in memory, so this file
// starts a control plane of its own without a watch cache for ConfigMaps: a watch then reads etcd,
// and once etcd is compacted an old resourceVersion is answered 410 Expired, as in a long-running
// cluster whose apiserver compacts every five minutes.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it, onTestFinished } from 'vitest';
import { KubeApiClient } from '../../gateway/config/kube/kube-api-client.js';
import { fromKubeconfigFile } from '../../gateway/config/kube/kube-client-config.js';
import { KubeListWatch, type KubeObject } from '../../gateway/config/kube/kube-list-watch.js';
import { MANAGED_BY_LABEL, MANAGED_BY_VALUE, RENDERED_SELECTOR } from '../../gateway/config/kube/index.js';
import { startControlPlane, type ControlPlane } from '../infra/control-plane.js';
import { until } from '../support/until.js';

/** until() for a condition the test's own handlers set. */
const poll = <T>(what: string, probe: () => T | undefined, timeoutMs?: number): Promise<T> =>
  until(what, () => Promise.resolve(probe()), timeoutMs);

const run = promisify(execFile);
let plane: ControlPlane;

beforeAll(async () => {
  const before = process.env['KUBE_TEST_APISERVER_ARGS'];
  process.env['KUBE_TEST_APISERVER_ARGS'] = '--watch-cache-sizes=configmaps#0';
  try {
    plane = await startControlPlane();
  } finally {
    if (before === undefined) delete process.env['KUBE_TEST_APISERVER_ARGS'];
    else process.env['KUBE_TEST_APISERVER_ARGS'] = before;
  }
}, 120_000);
afterAll(async () => {
  await plane?.stop();
});

async function apply(name: string): Promise<void> {
  const child = run(join(plane.bin, 'kubectl'), ['--kubeconfig', plane.kubeconfig, 'apply', '-f', '-']);
  child.child.stdin?.end(
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: 'default', labels: { [MANAGED_BY_LABEL]: MANAGED_BY_VALUE } },
      data: { 'fragment.json': '{}' },
    }),
  );
  await child;
}

/** Compacts this file's etcd up to now, as the apiserver does every five minutes: older resource
 * versions are then gone (410). etcd's client URL is read from its process (kube-test-env.sh). */
async function compactEtcd(): Promise<void> {
  const planeDir = dirname(plane.kubeconfig);
  const pid = (await readFile(join(planeDir, 'etcd.pid'), 'utf8')).split(' ')[0] as string;
  const args = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0');
  const url = args[args.indexOf('--listen-client-urls') + 1]?.split(',')[0];
  expect(url).toBeDefined();
  const post = async (path: string, body: unknown) =>
    (await (
      await fetch(`${url as string}${path}`, { method: 'POST', body: JSON.stringify(body) })
    ).json()) as {
      header: { revision: string };
    };
  const { revision } = (await post('/v3/kv/range', { key: Buffer.from('/').toString('base64') })).header;
  await post('/v3/kv/compaction', { revision, physical: true });
}

it('kube:watch-gone-relists — a watch from an expired resourceVersion (410 Gone) relists and carries on', async () => {
  await apply('part-gone');
  await compactEtcd();
  const client = new KubeApiClient(fromKubeconfigFile(plane.kubeconfig));
  const added: string[] = [];
  const failures: unknown[] = [];
  let lists = 0;
  const listWatch = new KubeListWatch<KubeObject>({
    client,
    path: '/api/v1/namespaces/default/configmaps',
    labelSelector: RENDERED_SELECTOR,
    resumeFrom: '1',
    handlers: {
      add: (object) => added.push(object.metadata?.name ?? ''),
      update: () => undefined,
      delete: () => undefined,
      listed: () => (lists += 1),
      failed: (error) => failures.push(error),
      watchEnded: () => undefined,
      recovered: () => undefined,
    },
  });
  listWatch.start();
  onTestFinished(async () => {
    await listWatch.stop();
    client.close();
  });
  // Without the relist nothing is ever added: the watch starts after part-gone was written.
  await poll('the relist', () => (lists === 1 && added.includes('part-gone') ? true : undefined));
  await apply('part-after-gone');
  await poll('a change after the relist', () => (added.includes('part-after-gone') ? true : undefined));
  expect(lists).toBe(1);
  expect(failures).toEqual([]);
}, 60_000);
