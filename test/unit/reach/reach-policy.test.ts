// The tenant reach policy as pure decisions (issue 20, D19): address normalisation sees through the
// spellings of one address as another, the built-in ranges are denied, and the decision order is
// CIDR exceptions, built-in ranges, host exceptions, admin deny list, default action.
import { describe, expect, it } from 'vitest';
import { TenantPolicySchema, type TenantPolicy } from '../../../gateway/config/index.js';
import { normaliseAddress, ReachPolicy } from '../../../gateway/reach/index.js';

const scope = { namespace: 'team-a', workspace: 'acme' };
const policy = (input: unknown = {}): TenantPolicy => TenantPolicySchema.parse(input);
const reason = (p: ReachPolicy, address: string, host?: string) => {
  const decision = p.decideAddress(scope, host, address);
  return decision.allowed ? 'allowed' : decision.reason;
};

describe('normaliseAddress', () => {
  it('reach:address-spellings — mapped, compatible, NAT64, bracketed, zoned and upper-case forms normalise to the address they carry', () => {
    expect(normaliseAddress('::ffff:127.0.0.1')).toEqual({ address: '127.0.0.1', family: 'ipv4' });
    expect(normaliseAddress('::ffff:7f00:1')).toEqual({ address: '127.0.0.1', family: 'ipv4' });
    expect(normaliseAddress('::FFFF:7F00:1')).toEqual({ address: '127.0.0.1', family: 'ipv4' });
    expect(normaliseAddress('::127.0.0.1')).toEqual({ address: '127.0.0.1', family: 'ipv4' });
    expect(normaliseAddress('64:ff9b::a9fe:a9fe')).toEqual({ address: '169.254.169.254', family: 'ipv4' });
    expect(normaliseAddress('[::1]')).toEqual({ address: '0:0:0:0:0:0:0:1', family: 'ipv6' });
    expect(normaliseAddress('0:0:0:0:0:0:0:1')).toEqual({ address: '0:0:0:0:0:0:0:1', family: 'ipv6' });
    expect(normaliseAddress('fe80::1%eth0')?.family).toBe('ipv6');
    expect(normaliseAddress('2001:db8::5')).toEqual({ address: '2001:db8:0:0:0:0:0:5', family: 'ipv6' });
    expect(normaliseAddress('not-an-ip')).toBeUndefined();
  });
});

describe('ReachPolicy.decideAddress', () => {
  it('reach:built-in-ranges — loopback, link-local, unspecified, multicast, reserved, own and API-server addresses are denied in every spelling', () => {
    const p = new ReachPolicy(policy(), { gateway: ['192.0.2.2'], apiServer: ['10.96.0.1'] });
    for (const [address, expected] of [
      ['127.0.0.1', 'loopback'],
      ['127.8.9.10', 'loopback'],
      ['::1', 'loopback'],
      ['[::1]', 'loopback'],
      ['::ffff:127.0.0.1', 'loopback'],
      ['::ffff:7f00:1', 'loopback'],
      ['169.254.169.254', 'link-local'],
      ['::ffff:169.254.169.254', 'link-local'],
      ['64:ff9b::a9fe:a9fe', 'link-local'],
      ['fe80::1%eth0', 'link-local'],
      ['0.0.0.0', 'unspecified'],
      ['::', 'unspecified'],
      ['224.0.0.1', 'multicast'],
      ['ff02::1', 'multicast'],
      ['255.255.255.255', 'reserved'],
      ['240.1.2.3', 'reserved'],
      ['192.0.2.2', 'gateway-address'],
      ['10.96.0.1', 'api-server'],
      ['203.0.113.9', 'allowed'],
      ['2001:db8::1', 'allowed'],
    ] as const)
      expect(reason(p, address), address).toBe(expected);
  });

  it('reach:decision-order — CIDR exceptions beat everything; host exceptions beat only the admin deny list; defaultAction decides the rest', () => {
    const p = new ReachPolicy(
      policy({
        network: {
          denyCidrs: ['10.0.0.0/8'],
          allow: { cidrs: ['127.0.0.2/32'], hosts: ['*.svc.example'] },
          namespaces: {
            'team-a': { cidrs: ['10.1.2.3/32'], hosts: ['db.internal'] },
            other: { cidrs: ['10.9.9.9/32'] },
          },
        },
      }),
    );
    expect(reason(p, '127.0.0.2')).toBe('allowed');
    expect(reason(p, '127.0.0.1')).toBe('loopback');
    expect(reason(p, '10.1.2.3')).toBe('allowed');
    expect(reason(p, '10.9.9.9')).toBe('denied-cidr');
    expect(reason(p, '10.4.4.4')).toBe('denied-cidr');
    expect(reason(p, '10.4.4.4', 'api.svc.example')).toBe('allowed');
    expect(reason(p, '10.4.4.4', 'db.internal')).toBe('allowed');
    expect(reason(p, '10.4.4.4', 'svc.example')).toBe('denied-cidr');
    expect(reason(p, '10.4.4.4', 'evilsvc.example')).toBe('denied-cidr');
    // A host exception never opens a built-in range (a name resolving to loopback stays denied).
    expect(reason(p, '127.0.0.1', 'api.svc.example')).toBe('loopback');
    const strict = new ReachPolicy(
      policy({ network: { defaultAction: 'deny', allow: { hosts: ['mcp.example.com'] } } }),
    );
    expect(reason(strict, '203.0.113.9')).toBe('not-allowed');
    expect(reason(strict, '203.0.113.9', 'mcp.example.com')).toBe('allowed');
  });

  it('reach:localhost-by-name — localhost and *.localhost are loopback before any lookup, unless loopback is an exception', () => {
    const p = new ReachPolicy(policy());
    expect(p.decideName(scope, 'localhost')).toEqual({ allowed: false, reason: 'loopback' });
    expect(p.decideName(scope, 'api.LOCALHOST.')).toEqual({ allowed: false, reason: 'loopback' });
    expect(p.decideName(scope, 'example.com')).toBeUndefined();
    const open = new ReachPolicy(policy({ network: { allow: { cidrs: ['127.0.0.0/8'] } } }));
    expect(open.decideName(scope, 'localhost')).toBeUndefined();
  });
});

describe('ReachPolicy paths', () => {
  it('reach:path-text — roots per namespace and workspace; relative, dotted and prefix-sharing paths are refused', () => {
    const p = new ReachPolicy(
      policy({
        files: { allowedRoots: ['/data/{namespace}', '/srv/{workspace}/docs', '/'.concat('shared')] },
      }),
    );
    expect(p.rootsFor(scope)).toEqual(['/data/team-a', '/srv/acme/docs', '/shared']);
    const ok = (path: string) => p.decidePathText(scope, path).allowed;
    expect(ok('/data/team-a')).toBe(true);
    expect(ok('/data/team-a/')).toBe(true);
    expect(ok('/data/team-a/handbook')).toBe(true);
    expect(ok('/srv/acme/docs/x')).toBe(true);
    expect(ok('/data/team-a-twin/handbook')).toBe(false);
    expect(ok('/data/team-b')).toBe(false);
    expect(ok('data/team-a')).toBe(false);
    expect(ok('/data/team-a/../team-b')).toBe(false);
    expect(ok('/data/team-a/./x')).toBe(false);
    expect(ok('/var/run/secrets/kubernetes.io/serviceaccount')).toBe(false);
    expect(new ReachPolicy(policy()).decidePathText(scope, '/data/team-a').allowed).toBe(false);
  });

  it('reach:policy-schema — bad CIDRs, relative or dotted roots and unknown keys are refused; defaults are the secure ones', () => {
    expect(TenantPolicySchema.safeParse({ network: { denyCidrs: ['10.0.0.0/33'] } }).success).toBe(false);
    expect(TenantPolicySchema.safeParse({ network: { denyCidrs: ['banana'] } }).success).toBe(false);
    expect(TenantPolicySchema.safeParse({ files: { allowedRoots: ['data'] } }).success).toBe(false);
    expect(TenantPolicySchema.safeParse({ files: { allowedRoots: ['/data/../etc'] } }).success).toBe(false);
    expect(TenantPolicySchema.safeParse({ network: { allowAll: true } }).success).toBe(false);
    expect(TenantPolicySchema.safeParse({ network: { allow: { hosts: ['Bad_Host'] } } }).success).toBe(false);
    expect(policy()).toEqual({
      files: { allowedRoots: [] },
      network: { denyCidrs: [], defaultAction: 'allow', allow: { cidrs: [], hosts: [] }, namespaces: {} },
      stdio: 'deny',
    });
  });
});
