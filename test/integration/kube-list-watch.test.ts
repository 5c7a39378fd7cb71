// The gateway's own Kubernetes client (issue 26: no @kubernetes/client-node in a gateway) against
// the run's real kube-apiserver: InformerObjectFeed lists and watches the rendered ConfigMaps and
// Secrets, resumes a watch the server ends without relisting, re-reads a rotated token file, and
// refuses a server its CA does not vouch for and a watch line over its bound. 410 Gone is in
// kube-watch-expired.test.ts.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { InformerObjectFeed } from '../../gateway/config/kube/informer-object-feed.js';
import {
  KubeConfigError,
  fromKubeconfigFile,
  inCluster,
  type KubeClientConfig,
} from '../../gateway/config/kube/kube-client-config.js';
import { MANAGED_BY_LABEL, MANAGED_BY_VALUE } from '../../gateway/config/kube/index.js';
import type { RenderedObject } from '../../gateway/config/kube/rendered-object.js';
import { freshNamespace, kubeconfigPath, kubectlOk } from '../support/kube-harness.js';
import { until } from '../support/until.js';

/** until() for a condition the test's own handlers set. */
const poll = <T>(what: string, probe: () => T | undefined, timeoutMs?: number): Promise<T> =>
  until(what, () => Promise.resolve(probe()), timeoutMs);
import { captureLogger, type CaptureLogger } from '../unit/support/capture-logger.js';

const run = promisify(execFile);
const LABELS = { [MANAGED_BY_LABEL]: MANAGED_BY_VALUE };
let ns: string;
let dir: string;
const running: { stop(): Promise<void> }[] = [];

beforeAll(async () => {
  ns = await freshNamespace('agw-listwatch');
  dir = await mkdtemp(join(tmpdir(), 'agw-listwatch-'));
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((feed) => feed.stop()));
});
afterAll(async () => {
  await kubectlOk(['delete', 'namespace', ns, '--wait=false']);
  await rm(dir, { recursive: true, force: true });
});

function apply(kind: 'ConfigMap' | 'Secret', name: string, data: Record<string, string>, labels = LABELS) {
  const encoded =
    kind === 'Secret'
      ? Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')]))
      : data;
  return kubectlOk(
    ['apply', '-n', ns, '-f', '-'],
    JSON.stringify({ apiVersion: 'v1', kind, metadata: { name, labels }, data: encoded }),
  );
}

interface Watched {
  readonly logger: CaptureLogger;
  readonly objects: Map<string, RenderedObject>;
  readonly removed: string[];
  readonly started: Promise<void>;
}

function watch(
  config: KubeClientConfig,
  options: { maxLineBytes?: number; watchTimeoutSeconds?: number } = {},
): Watched {
  const logger = captureLogger();
  const objects = new Map<string, RenderedObject>();
  const removed: string[] = [];
  const feed = new InformerObjectFeed({
    kubeConfig: config,
    namespace: ns,
    logger,
    minBackoffMs: 100,
    maxBackoffMs: 400,
    ...options,
  });
  running.push(feed);
  const started = feed.start({
    upsert: (object) => objects.set(`${object.kind}/${object.name}`, object),
    remove: (kind, name) => {
      objects.delete(`${kind}/${name}`);
      removed.push(`${kind}/${name}`);
    },
  });
  return { logger, objects, removed, started };
}

const linesOf = (watched: Watched, message: string) =>
  watched.logger.lines.filter((line) => line.message === message && line.fields['kind'] === 'ConfigMap');

/** A kubeconfig like the run's, with some of its fields replaced. */
interface KubeconfigDocument {
  'current-context': string;
  clusters: { cluster: Record<string, unknown> }[];
}
const clusterOf = (document: KubeconfigDocument) =>
  (document.clusters[0] as { cluster: Record<string, unknown> }).cluster;

async function kubeconfigWith(name: string, edit: (document: KubeconfigDocument) => void): Promise<string> {
  const document = parse(await readFile(kubeconfigPath(), 'utf8')) as KubeconfigDocument;
  edit(document);
  const path = join(dir, `${name}.kubeconfig`);
  await writeFile(path, stringify(document));
  return path;
}

it('kube:list-watch — lists and watches the labelled ConfigMaps and Secrets: adds, updates, deletes; token and client-certificate kubeconfigs', async () => {
  await apply('ConfigMap', 'part-a', { 'fragment.json': '{"a":1}' });
  await apply('ConfigMap', 'unlabelled', { x: 'y' }, {} as typeof LABELS);
  await apply('Secret', 'part-s', { key: 'secret-value' });

  const config = fromKubeconfigFile(kubeconfigPath());
  expect(config.token).toBeDefined();
  expect(config.server).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  const watched = watch(config);
  await watched.started;
  expect([...watched.objects.keys()].sort()).toEqual(['ConfigMap/part-a', 'Secret/part-s']);
  expect(watched.objects.get('Secret/part-s')?.data).toEqual({ key: 'secret-value' });
  expect(watched.objects.get('ConfigMap/part-a')?.labels).toMatchObject(LABELS);

  await apply('ConfigMap', 'part-a', { 'fragment.json': '{"a":2}' });
  await poll('the update', () =>
    watched.objects.get('ConfigMap/part-a')?.data['fragment.json'] === '{"a":2}' ? true : undefined,
  );
  await apply('ConfigMap', 'part-b', { 'fragment.json': '{"b":1}' });
  await poll('the add', () => (watched.objects.has('ConfigMap/part-b') ? true : undefined));
  await kubectlOk(['delete', 'configmap', 'part-a', '-n', ns]);
  await poll('the delete', () => (watched.objects.has('ConfigMap/part-a') ? undefined : true));
  expect(watched.removed).toEqual(['ConfigMap/part-a']);
  expect(watched.objects.has('ConfigMap/unlabelled')).toBe(false);

  // The same through the kubeconfig's client-certificate user (inline certificate and key).
  const certPath = await kubeconfigWith('cert', (document) => {
    document['current-context'] = 'kube-test-cert';
  });
  const byCert = fromKubeconfigFile(certPath);
  expect(byCert.cert).toBeDefined();
  expect(await byCert.token()).toBeUndefined();
  const watchedByCert = watch(byCert);
  await watchedByCert.started;
  expect([...watchedByCert.objects.keys()].sort()).toEqual(['ConfigMap/part-b', 'Secret/part-s']);
  expect(watchedByCert.logger.lines.filter((line) => line.level === 'warn')).toEqual([]);
}, 60_000);

it('kube:watch-resume — a watch the server ends is resumed from the last resourceVersion, with no relist', async () => {
  const watched = watch(fromKubeconfigFile(kubeconfigPath()), { watchTimeoutSeconds: 1 });
  await watched.started;
  // Each watch lasts 1–2 s on the server; wait for three to end, with a change in between.
  await poll('a watch ended by the server', () =>
    linesOf(watched, 'kubernetes watch ended by the server; resuming').length >= 1 ? true : undefined,
  );
  await apply('ConfigMap', 'part-resume', { 'fragment.json': '{"r":1}' });
  await poll('the change after a resumed watch', () =>
    watched.objects.has('ConfigMap/part-resume') ? true : undefined,
  );
  await poll(
    'three watches ended by the server',
    () => (linesOf(watched, 'kubernetes watch ended by the server; resuming').length >= 3 ? true : undefined),
    20_000,
  );
  expect(linesOf(watched, 'kubernetes objects listed')).toHaveLength(1);
  expect(watched.logger.lines.filter((line) => line.level === 'warn')).toEqual([]);
  expect(watched.removed).toEqual([]);
}, 60_000);

it('kube:token-file-rotation — an in-cluster service account token rotated in its file is used on the next request', async () => {
  await kubectlOk(['create', 'serviceaccount', 'reader', '-n', ns]);
  await kubectlOk([
    'create',
    'role',
    'reader',
    '-n',
    ns,
    '--verb=get,list,watch',
    '--resource=configmaps,secrets',
  ]);
  await kubectlOk([
    'create',
    'rolebinding',
    'reader',
    '-n',
    ns,
    '--role=reader',
    `--serviceaccount=${ns}:reader`,
  ]);
  const token = (await kubectlOk(['create', 'token', 'reader', '-n', ns, '--duration', '1h'])).trim();
  const admin = fromKubeconfigFile(kubeconfigPath());
  const account = await mkdtemp(join(dir, 'serviceaccount-'));
  await writeFile(join(account, 'ca.crt'), admin.ca ?? '');
  await writeFile(join(account, 'token'), 'not-a-valid-token');
  const server = new URL(admin.server);
  const config = inCluster(
    { KUBERNETES_SERVICE_HOST: server.hostname, KUBERNETES_SERVICE_PORT: server.port },
    account,
  );
  expect(config.server).toBe(admin.server);

  const watched = watch(config);
  await poll('a refused request', () =>
    watched.logger.lines.some((line) => line.level === 'warn' && line.fields['status'] === 401)
      ? true
      : undefined,
  );
  await writeFile(join(account, 'token'), `${token}\n`);
  await watched.started;
  expect(JSON.stringify(watched.logger.lines)).not.toContain(token);
}, 60_000);

it('kube:tls-verified — a server the CA does not vouch for is refused; skipping verification is not accepted', async () => {
  await run('openssl', [
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=some-other-ca',
    '-keyout', join(dir, 'other-ca.key'), '-out', join(dir, 'other-ca.crt'),
  ]); // prettier-ignore
  const otherCa = (await readFile(join(dir, 'other-ca.crt'))).toString('base64');
  const wrongCa = await kubeconfigWith('wrong-ca', (document) => {
    clusterOf(document)['certificate-authority-data'] = otherCa;
  });
  const noCa = await kubeconfigWith('no-ca', (document) => {
    delete clusterOf(document)['certificate-authority-data'];
  });
  for (const path of [wrongCa, noCa]) {
    const watched = watch(fromKubeconfigFile(path));
    let synced = false;
    void watched.started.then(() => (synced = true));
    const refused = await poll('a refused TLS handshake', () =>
      watched.logger.lines.find((line) => line.level === 'warn' && line.fields['failures'] === 2),
    );
    expect(String(refused.fields['code'])).toMatch(/CERT|UNABLE_TO_VERIFY|SELF_SIGNED/);
    expect(synced).toBe(false);
    expect(watched.objects.size).toBe(0);
  }
  const insecure = await kubeconfigWith('insecure', (document) => {
    clusterOf(document)['insecure-skip-tls-verify'] = true;
  });
  expect(() => fromKubeconfigFile(insecure)).toThrow(KubeConfigError);
  expect(() => fromKubeconfigFile(insecure)).toThrow(/insecure-skip-tls-verify is not supported/);
}, 60_000);

it('kube:watch-line-bound — a watch line longer than the bound is refused; the feed keeps what it had', async () => {
  await apply('ConfigMap', 'part-small', { 'fragment.json': '{"s":1}' });
  const watched = watch(fromKubeconfigFile(kubeconfigPath()), { maxLineBytes: 64 * 1024 });
  await watched.started;
  const before = [...watched.objects.keys()].sort();
  expect(before).toContain('ConfigMap/part-small');
  await apply('ConfigMap', 'part-huge', { 'fragment.json': 'x'.repeat(100 * 1024) });
  const refused = await poll('the refused line', () =>
    watched.logger.lines.find((line) => line.level === 'warn' && line.fields['kind'] === 'ConfigMap'),
  );
  expect(refused.fields['error']).toBe('KubeResponseTooLargeError');
  expect(watched.objects.has('ConfigMap/part-huge')).toBe(false);
  expect([...watched.objects.keys()].sort()).toEqual(before);
  await kubectlOk(['delete', 'configmap', 'part-huge', '-n', ns]);
}, 60_000);
