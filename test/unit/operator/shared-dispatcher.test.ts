// One HTTP dispatcher per KubeConfig (issue 26): client-node 2.0.1 builds a new undici Agent, and so a
// new TLS connection, for every request; the operator's KubeConfig reuses one while the TLS settings
// it was built from hold, and builds a new one when they change (a rotated CA or client certificate).
import { HttpMethod, KubeConfig, RequestContext } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { sameSettings, shareDispatcher } from '../../../operator/kube/shared-dispatcher.js';

const b64 = (text: string) => Buffer.from(text).toString('base64');

function kubeConfig(user: Record<string, string> = { certData: b64('cert-1'), keyData: b64('key-1') }) {
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [{ name: 'c', server: 'https://127.0.0.1:6443', caData: b64('ca-1'), skipTLSVerify: false }],
    users: [{ name: 'u', ...user }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return config;
}

async function dispatcherOf(config: KubeConfig): Promise<unknown> {
  const context = new RequestContext('https://127.0.0.1:6443/api/v1/secrets', HttpMethod.GET);
  await config.applySecurityAuthentication(context);
  return context.getDispatcher();
}

describe('shareDispatcher', () => {
  it('operator:shared-dispatcher — every request of a KubeConfig gets the same dispatcher (client-node alone makes one per request); new TLS material gets a new one', async () => {
    const stock = kubeConfig();
    const [first, second] = [await dispatcherOf(stock), await dispatcherOf(stock)];
    expect(first).toBeDefined();
    expect(second).not.toBe(first);

    const config = kubeConfig();
    shareDispatcher(config);
    shareDispatcher(config); // a second call changes nothing
    const shared = await dispatcherOf(config);
    expect(shared).toBeDefined();
    expect(await dispatcherOf(config)).toBe(shared);

    // A rotated CA (the cluster entry changed in place) and then a new client certificate.
    (config.getCurrentCluster() as { caData: string }).caData = b64('ca-2');
    const rotated = await dispatcherOf(config);
    expect(rotated).not.toBe(shared);
    expect(await dispatcherOf(config)).toBe(rotated);
    (config.getCurrentUser() as { certData: string }).certData = b64('cert-2');
    const renewed = await dispatcherOf(config);
    expect(renewed).not.toBe(rotated);
    expect(await dispatcherOf(config)).toBe(renewed);
  });

  it('operator:shared-dispatcher-settings — settings compare by content: Buffers by bytes, objects by keys', () => {
    expect(sameSettings([{ a: 1 }, { ca: Buffer.from('x') }], [{ a: 1 }, { ca: Buffer.from('x') }])).toBe(
      true,
    );
    expect(sameSettings([{ a: 1 }, { ca: Buffer.from('x') }], [{ a: 1 }, { ca: Buffer.from('y') }])).toBe(
      false,
    );
    expect(sameSettings({ a: 1 }, { a: 1, b: undefined })).toBe(false);
    expect(sameSettings({ ca: Buffer.from('x') }, { ca: 'x' })).toBe(false);
    expect(sameSettings([1, 2], { 0: 1, 1: 2 })).toBe(false);
    expect(sameSettings(null, undefined)).toBe(false);
  });
});
