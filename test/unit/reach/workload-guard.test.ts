// The workload mark on the gateway side (issue 40, D25): a source the operator runs may dial exactly
// its Service's host and port although the admin's denyCidrs cover the cluster's Service range;
// another port, another host, a Service of another namespace and the built-in ranges stay refused.
import { describe, expect, it } from 'vitest';
import { TenantPolicySchema } from '../../../gateway/config/index.js';
import {
  NetworkGuard,
  ReachPolicy,
  type AliasResolver,
  type Resolver,
} from '../../../gateway/reach/index.js';

const names: Record<string, string> = {
  'mcp-fetch.team-a.svc.cluster.local': '10.96.5.5',
  'redis.team-a.svc.cluster.local': '10.96.7.7',
  'mcp-x.team-b.svc.cluster.local': '10.96.6.6',
  'mcp-loop.team-a.svc.cluster.local': '127.0.0.1',
};
const resolver: Resolver = (host) => {
  const address = names[host];
  return Promise.resolve(address === undefined ? [] : [{ address, family: 4 }]);
};
/** team-a made its own Service an ExternalName to team-b's; another lookup fails outright. */
const aliases: AliasResolver = (host) =>
  host === 'mcp-moved.team-a.svc.cluster.local'
    ? Promise.resolve(['mcp-x.team-b.svc.cluster.local'])
    : host === 'mcp-flaky.team-a.svc.cluster.local'
      ? Promise.reject(Object.assign(new Error('timeout'), { code: 'ETIMEOUT' }))
      : Promise.resolve([]);
names['mcp-moved.team-a.svc.cluster.local'] = '10.96.6.6';
names['mcp-flaky.team-a.svc.cluster.local'] = '10.96.5.6';
const policy = new ReachPolicy(TenantPolicySchema.parse({ network: { denyCidrs: ['10.96.0.0/12'] } }));
const guard = new NetworkGuard(
  policy,
  { namespace: 'team-a', workspace: 'acme' },
  resolver,
  undefined,
  aliases,
);
const fetchHost = 'mcp-fetch.team-a.svc.cluster.local';

describe('NetworkGuard.forWorkload', () => {
  it('reach:workload-mark — exactly the marked Service host and port, in the tenant’s own namespace', async () => {
    await expect(guard.resolve(fetchHost, 8080)).rejects.toMatchObject({ reason: 'denied-cidr' });
    const marked = guard.forWorkload({ host: fetchHost, port: 8080 });
    expect(marked).not.toBe(guard);
    expect(guard.forWorkload({ host: fetchHost, port: 8080 })).toBe(marked);
    await expect(marked.resolve(fetchHost, 8080)).resolves.toEqual({ address: '10.96.5.5', family: 4 });
    await expect(marked.resolve(fetchHost, 6379)).rejects.toMatchObject({ reason: 'denied-cidr' });
    await expect(marked.resolve(fetchHost)).rejects.toMatchObject({ reason: 'denied-cidr' });
    await expect(marked.resolve('redis.team-a.svc.cluster.local', 8080)).rejects.toMatchObject({
      reason: 'denied-cidr',
    });
    // A mark naming another namespace's Service is ignored: the workspace's own guard decides.
    const other = guard.forWorkload({ host: 'mcp-x.team-b.svc.cluster.local', port: 8080 });
    expect(other).toBe(guard);
    await expect(other.resolve('mcp-x.team-b.svc.cluster.local', 8080)).rejects.toMatchObject({
      reason: 'denied-cidr',
    });
    // The built-in ranges hold even for the marked host.
    const loop = guard.forWorkload({ host: 'mcp-loop.team-a.svc.cluster.local', port: 8080 });
    await expect(loop.resolve('mcp-loop.team-a.svc.cluster.local', 8080)).rejects.toMatchObject({
      reason: 'loopback',
    });
    await guard.close();
  });

  it('reach:workload-alias — a marked Service name that is an alias (an ExternalName repointed by the tenant) or cannot be checked is refused', async () => {
    for (const host of ['mcp-moved.team-a.svc.cluster.local', 'mcp-flaky.team-a.svc.cluster.local']) {
      const marked = guard.forWorkload({ host, port: 8080 });
      expect(marked).not.toBe(guard);
      const refusal = await marked.resolve(host, 8080).catch((error: unknown) => error);
      expect(refusal).toMatchObject({ reason: 'workload-alias' });
      // The message names what the tenant wrote, never where the alias points or an address.
      expect((refusal as Error).message).toContain(host);
      expect((refusal as Error).message).not.toMatch(/team-b|10\.96/);
    }
    await guard.close();
  });
});
