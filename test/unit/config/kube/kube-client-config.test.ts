// The gateway's kubeconfig loader (issue 26, kube-client-config.ts) on files of its own: where it
// looks, relative paths, inline and file material, and the clear refusals. The requests themselves
// run against a real apiserver in test/integration/kube-list-watch.test.ts.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { stringify } from 'yaml';
import {
  KubeConfigError,
  fromKubeconfigFile,
  loadKubeClientConfig,
} from '../../../../gateway/config/kube/kube-client-config.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agw-kubeconfig-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function kubeconfig(
  name: string,
  cluster: Record<string, unknown>,
  user: Record<string, unknown>,
): Promise<string> {
  const path = join(dir, name);
  await writeFile(
    path,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        { name: 'other', cluster: { server: 'https://other:1' } },
        { name: 'k', cluster },
      ],
      users: [{ name: 'u', user }],
      contexts: [{ name: 'c', context: { cluster: 'k', user: 'u' } }],
      'current-context': 'c',
    }),
  );
  return path;
}

it('kube:kubeconfig-load — current context, relative files, inline data, token file; the default chain', async () => {
  await writeFile(join(dir, 'ca.pem'), 'CA-PEM');
  await writeFile(join(dir, 'token'), 'first\n');
  const path = await kubeconfig(
    'files.kubeconfig',
    { server: 'https://10.0.0.1:6443/', 'certificate-authority': 'ca.pem', 'tls-server-name': 'kubernetes' },
    { tokenFile: 'token' },
  );
  const config = fromKubeconfigFile(path);
  expect(config.server).toBe('https://10.0.0.1:6443');
  expect(config.ca?.toString()).toBe('CA-PEM');
  expect(config.serverName).toBe('kubernetes');
  expect(await config.token()).toBe('first');
  await writeFile(join(dir, 'token'), 'second');
  expect(await config.token()).toBe('second');

  const inline = fromKubeconfigFile(
    await kubeconfig(
      'inline.kubeconfig',
      { server: 'https://k:443', 'certificate-authority-data': Buffer.from('CA2').toString('base64') },
      {
        'client-certificate-data': Buffer.from('CERT').toString('base64'),
        'client-key-data': Buffer.from('KEY').toString('base64'),
      },
    ),
  );
  expect([inline.ca?.toString(), inline.cert?.toString(), inline.key?.toString()]).toEqual([
    'CA2',
    'CERT',
    'KEY',
  ]);
  expect(await inline.token()).toBeUndefined();

  // $KUBECONFIG (first existing entry) before ~/.kube/config before the service account.
  const chosen = loadKubeClientConfig({ env: { KUBECONFIG: `${join(dir, 'missing')}:${path}`, HOME: dir } });
  expect(chosen.origin).toBe(`kubeconfig ${path}`);
  const account = await mkdtemp(join(dir, 'sa-'));
  await writeFile(join(account, 'ca.crt'), 'SA-CA');
  await writeFile(join(account, 'token'), 'sa-token');
  const pod = loadKubeClientConfig({
    env: { HOME: account, KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' },
    serviceAccountDir: account,
  });
  expect(pod.server).toBe('https://[fd00::1]:443');
  expect(await pod.token()).toBe('sa-token');
});

it('kube:kubeconfig-load — refuses what it cannot honour, naming the field and never the content', async () => {
  const refusal = async (cluster: Record<string, unknown>, user: Record<string, unknown>) => {
    const path = await kubeconfig(`bad-${Math.random()}.kubeconfig`, cluster, user);
    try {
      fromKubeconfigFile(path);
    } catch (error) {
      expect(error).toBeInstanceOf(KubeConfigError);
      return (error as Error).message;
    }
    throw new Error('not refused');
  };
  const https = { server: 'https://k:443' };
  expect(await refusal({ server: 'http://k:8080' }, {})).toMatch(/server must be an https URL/);
  expect(await refusal({ ...https, 'insecure-skip-tls-verify': true }, {})).toMatch(
    /insecure-skip-tls-verify/,
  );
  expect(await refusal(https, { exec: { command: 'aws' } })).toMatch(/'exec' is not supported/);
  expect(await refusal(https, { 'auth-provider': { name: 'gcp' } })).toMatch(/'auth-provider'/);
  expect(await refusal(https, { username: 'admin', password: 'hunter2-secret' })).not.toMatch(/hunter2/);
  expect(await refusal(https, { 'client-certificate-data': 'Q0VSVA==' })).toMatch(/needs its key/);
  expect(await refusal({ ...https, 'certificate-authority': 'nope.pem' }, {})).toMatch(
    /cannot read the CA .*ENOENT/,
  );
  expect(() => loadKubeClientConfig({ env: { HOME: dir }, serviceAccountDir: dir })).toThrow(
    /not in a cluster \(KUBERNETES_SERVICE_HOST\/PORT unset\)/,
  );
});
