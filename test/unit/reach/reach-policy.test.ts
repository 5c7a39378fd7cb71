// The tenant reach policy as pure decisions (issue 20, D19): the built-in ranges are denied in every
// spelling; the decision order is CIDR exceptions (which open even the built-in ranges), built-in
// ranges, host exceptions (which open only the admin's deny list and defaultAction deny), the
// admin's deny list, the default action. Paths are decided as written against per-tenant roots.
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_TENANT_POLICY,
  TenantPolicySchema,
  type TenantPolicy,
} from '../../../gateway/config/index.js';
import { describeDenial, ReachPolicy, type ReachDenial } from '../../../gateway/reach/index.js';

const scope = { namespace: 'team-a', workspace: 'acme' };
const other = { namespace: 'team-b', workspace: 'beta' };
const policy = (input: unknown = {}): TenantPolicy => TenantPolicySchema.parse(input);
const reason = (p: ReachPolicy, address: string, host?: string, who = scope) => {
  const decision = p.decideAddress(who, host, address);
  return decision.allowed ? 'allowed' : decision.reason;
};

describe('ReachPolicy.decideAddress: built-in ranges', () => {
  it('reach:built-in-ranges — loopback, link-local, unspecified, multicast, reserved, own and API-server addresses are denied in every spelling', () => {
    const p = new ReachPolicy(policy(), { gateway: ['192.0.2.2', 'fd00::2'], apiServer: ['10.96.0.1'] });
    for (const [address, expected] of [
      ['127.0.0.1', 'loopback'],
      ['127.8.9.10', 'loopback'],
      ['127.255.255.255', 'loopback'],
      ['::1', 'loopback'],
      ['[::1]', 'loopback'],
      ['0:0:0:0:0:0:0:1', 'loopback'],
      ['::ffff:127.0.0.1', 'loopback'],
      ['::ffff:7f00:1', 'loopback'],
      ['::127.0.0.1', 'loopback'],
      ['64:ff9b::7f00:1', 'loopback'],
      ['169.254.169.254', 'link-local'],
      ['169.254.0.1', 'link-local'],
      ['::ffff:169.254.169.254', 'link-local'],
      ['::ffff:a9fe:a9fe', 'link-local'],
      ['64:ff9b::a9fe:a9fe', 'link-local'],
      ['fe80::1', 'link-local'],
      ['fe80::1%eth0', 'link-local'],
      ['FEBF::1', 'link-local'],
      ['0.0.0.0', 'unspecified'],
      ['0.1.2.3', 'unspecified'],
      ['::', 'unspecified'],
      ['::ffff:0.0.0.0', 'unspecified'],
      ['224.0.0.1', 'multicast'],
      ['239.255.255.250', 'multicast'],
      ['ff02::1', 'multicast'],
      ['FF05::2', 'multicast'],
      ['240.0.0.1', 'reserved'],
      ['250.1.2.3', 'reserved'],
      ['255.255.255.255', 'reserved'],
      ['192.0.2.2', 'gateway-address'],
      ['::ffff:192.0.2.2', 'gateway-address'],
      ['fd00::2', 'gateway-address'],
      ['10.96.0.1', 'api-server'],
      ['::ffff:a60:1', 'api-server'],
      // Neighbours of each range are not caught by it.
      ['128.0.0.1', 'allowed'],
      ['169.255.0.1', 'allowed'],
      ['223.255.255.255', 'allowed'],
      ['fec0::1', 'allowed'],
      ['192.0.2.3', 'allowed'],
      ['10.96.0.2', 'allowed'],
      ['203.0.113.9', 'allowed'],
      ['2001:db8::1', 'allowed'],
    ] as const)
      expect(reason(p, address), address).toBe(expected);
  });

  it('refuses text that is not an IP address as reserved (a resolver answer is never trusted to be one)', () => {
    const p = new ReachPolicy(policy());
    expect(p.decideAddress(scope, 'x.example.com', 'not-an-address')).toEqual({
      allowed: false,
      reason: 'reserved',
    });
  });

  it('names each refusal in words without an address', () => {
    const reasons: ReachDenial[] = [
      'loopback',
      'link-local',
      'unspecified',
      'multicast',
      'reserved',
      'gateway-address',
      'api-server',
      'denied-cidr',
      'not-allowed',
      'unix-socket',
      'path-not-allowed',
      'path-escapes-root',
      'stdio-not-allowed',
      'workload-alias',
    ];
    const sentences = reasons.map(describeDenial);
    expect(new Set(sentences).size).toBe(reasons.length);
    for (const sentence of sentences) expect(sentence).not.toMatch(/\d+\.\d+\.\d+\.\d+|::/);
    expect(describeDenial('link-local')).toContain('metadata');
    expect(describeDenial('denied-cidr')).toContain('policy.network.denyCidrs');
  });
});

describe('ReachPolicy.decideAddress: exceptions and the admin deny list', () => {
  it('reach:decision-order — CIDR exceptions beat everything; host exceptions beat only the admin deny list; defaultAction decides the rest', () => {
    const p = new ReachPolicy(
      policy({
        network: {
          denyCidrs: ['10.0.0.0/8'],
          allow: { cidrs: ['127.0.0.2/32'], hosts: ['*.svc.example'] },
          namespaces: {
            'team-a': { cidrs: ['10.1.2.3/32'], hosts: ['db.internal'] },
            'team-b': { cidrs: ['10.9.9.9/32'] },
          },
        },
      }),
    );
    expect(reason(p, '127.0.0.2')).toBe('allowed');
    expect(reason(p, '127.0.0.1')).toBe('loopback');
    expect(reason(p, '10.1.2.3')).toBe('allowed');
    expect(reason(p, '10.9.9.9')).toBe('denied-cidr');
    expect(reason(p, '10.9.9.9', undefined, other)).toBe('allowed');
    expect(reason(p, '10.1.2.3', undefined, other)).toBe('denied-cidr');
    expect(reason(p, '10.4.4.4')).toBe('denied-cidr');
    expect(reason(p, '10.4.4.4', 'api.svc.example')).toBe('allowed');
    expect(reason(p, '10.4.4.4', 'db.internal')).toBe('allowed');
    expect(reason(p, '10.4.4.4', 'db.internal', other)).toBe('denied-cidr');
    // A host exception never opens a built-in range (a name resolving to loopback stays denied).
    expect(reason(p, '127.0.0.1', 'api.svc.example')).toBe('loopback');
    expect(reason(p, '169.254.169.254', 'db.internal')).toBe('link-local');
    const strict = new ReachPolicy(
      policy({ network: { defaultAction: 'deny', allow: { hosts: ['mcp.example.com'] } } }),
    );
    expect(reason(strict, '203.0.113.9')).toBe('not-allowed');
    expect(reason(strict, '203.0.113.9', 'other.example.com')).toBe('not-allowed');
    expect(reason(strict, '203.0.113.9', 'mcp.example.com')).toBe('allowed');
  });

  it('CIDR exceptions, global or per namespace, open the built-in ranges, own and API-server addresses in every spelling', () => {
    const p = new ReachPolicy(
      policy({
        network: {
          allow: { cidrs: ['169.254.169.254/32', '192.0.2.2'] },
          namespaces: { 'team-a': { cidrs: ['127.0.0.0/8', '::1/128', '10.96.0.1/32'] } },
        },
      }),
      { gateway: ['192.0.2.2'], apiServer: ['10.96.0.1'] },
    );
    expect(reason(p, '169.254.169.254')).toBe('allowed');
    expect(reason(p, '::ffff:169.254.169.254')).toBe('allowed');
    expect(reason(p, '64:ff9b::a9fe:a9fe')).toBe('allowed');
    expect(reason(p, '169.254.169.253')).toBe('link-local');
    expect(reason(p, '192.0.2.2')).toBe('allowed');
    expect(reason(p, '127.0.0.1')).toBe('allowed');
    expect(reason(p, '::ffff:7f00:1')).toBe('allowed');
    expect(reason(p, '::1')).toBe('allowed');
    expect(reason(p, '10.96.0.1')).toBe('allowed');
    // The namespace exceptions are team-a's alone.
    expect(reason(p, '127.0.0.1', undefined, other)).toBe('loopback');
    expect(reason(p, '::1', undefined, other)).toBe('loopback');
    expect(reason(p, '10.96.0.1', undefined, other)).toBe('api-server');
    expect(reason(p, '169.254.169.254', undefined, other)).toBe('allowed');
  });

  it('host exceptions match *.domain below the domain only, case- and trailing-dot-insensitively, and never a literal', () => {
    const p = new ReachPolicy(
      policy({ network: { denyCidrs: ['10.0.0.0/8'], allow: { hosts: ['*.example.com', 'db.corp.test'] } } }),
    );
    expect(reason(p, '10.0.0.5', 'sub.example.com')).toBe('allowed');
    expect(reason(p, '10.0.0.5', 'a.b.example.com')).toBe('allowed');
    expect(reason(p, '10.0.0.5', 'SUB.Example.COM.')).toBe('allowed');
    expect(reason(p, '10.0.0.5', 'example.com')).toBe('denied-cidr');
    expect(reason(p, '10.0.0.5', 'badexample.com')).toBe('denied-cidr');
    expect(reason(p, '10.0.0.5', 'example.com.evil.test')).toBe('denied-cidr');
    expect(reason(p, '10.0.0.5', 'db.corp.test')).toBe('allowed');
    expect(reason(p, '10.0.0.5', 'x.db.corp.test')).toBe('denied-cidr');
    expect(reason(p, '10.0.0.5', 'corp.test')).toBe('denied-cidr');
    // A literal address has no host: the exceptions for names do not apply.
    expect(reason(p, '10.0.0.5')).toBe('denied-cidr');
    // Never through a built-in range, whatever the name.
    for (const address of ['127.0.0.1', '::1', '169.254.169.254', '0.0.0.0', '224.0.0.1', '240.0.0.1'])
      expect(reason(p, address, 'sub.example.com'), address).not.toBe('allowed');
  });

  it('the admin deny list holds IPv4 and IPv6 blocks in every spelling, an IPv6 block also as written (64:ff9b::/96)', () => {
    const p = new ReachPolicy(
      policy({ network: { denyCidrs: ['10.0.0.0/8', 'fd00::/8', '::ffff:172.16.0.0/108', '64:ff9b::/96'] } }),
    );
    expect(reason(p, '10.1.2.3')).toBe('denied-cidr');
    expect(reason(p, '::ffff:10.1.2.3')).toBe('denied-cidr');
    expect(reason(p, '::ffff:a01:203')).toBe('denied-cidr');
    expect(reason(p, 'fd12::1')).toBe('denied-cidr');
    expect(reason(p, '[FD12::1]')).toBe('denied-cidr');
    expect(reason(p, '172.16.5.5')).toBe('denied-cidr');
    expect(reason(p, '172.32.5.5')).toBe('allowed');
    // Normalisation turns 64:ff9b::808:808 into 8.8.8.8; the admin's NAT64 block must still hold it.
    expect(reason(p, '64:ff9b::808:808')).toBe('denied-cidr');
    expect(reason(p, '8.8.8.8')).toBe('allowed');
    expect(reason(p, '2001:db8::1')).toBe('allowed');
  });

  it('defaultAction deny refuses what no exception names; CIDR and host exceptions, global or per namespace, admit', () => {
    const p = new ReachPolicy(
      policy({
        network: {
          defaultAction: 'deny',
          allow: { cidrs: ['203.0.113.0/24'] },
          namespaces: { 'team-a': { hosts: ['*.team-a.example'] } },
        },
      }),
    );
    expect(reason(p, '198.51.100.1')).toBe('not-allowed');
    expect(reason(p, '2001:db8::1')).toBe('not-allowed');
    expect(reason(p, '203.0.113.77')).toBe('allowed');
    expect(reason(p, '198.51.100.1', 'api.team-a.example')).toBe('allowed');
    expect(reason(p, '198.51.100.1', 'api.team-a.example', other)).toBe('not-allowed');
    // Built-in ranges keep their own reason under deny.
    expect(reason(p, '127.0.0.1', 'api.team-a.example')).toBe('loopback');
  });
});

describe('ReachPolicy.decideName', () => {
  it('reach:localhost-by-name — localhost and *.localhost are loopback before any lookup, unless loopback is an exception', () => {
    const p = new ReachPolicy(policy());
    for (const name of [
      'localhost',
      'LOCALHOST',
      'localhost.',
      'x.localhost',
      'a.b.localhost',
      'api.LOCALHOST.',
    ])
      expect(p.decideName(scope, name), name).toEqual({ allowed: false, reason: 'loopback' });
    for (const name of ['example.com', 'localhost.example.com', 'notlocalhost', 'localhostx'])
      expect(p.decideName(scope, name), name).toBeUndefined();
    // 127.0.0.1 as an exception: the name is resolved like any other (undefined: look it up).
    const open = new ReachPolicy(policy({ network: { allow: { cidrs: ['127.0.0.0/8'] } } }));
    expect(open.decideName(scope, 'localhost')).toBeUndefined();
    const teamA = new ReachPolicy(
      policy({ network: { namespaces: { 'team-a': { cidrs: ['127.0.0.1/32'] } } } }),
    );
    expect(teamA.decideName(scope, 'localhost')).toBeUndefined();
    expect(teamA.decideName(other, 'localhost')).toEqual({ allowed: false, reason: 'loopback' });
    // An exception for another loopback address does not open localhost.
    const two = new ReachPolicy(policy({ network: { allow: { cidrs: ['127.0.0.2/32'] } } }));
    expect(two.decideName(scope, 'localhost')).toEqual({ allowed: false, reason: 'loopback' });
    // A host exception does not open it either.
    const named = new ReachPolicy(policy({ network: { allow: { hosts: ['localhost'] } } }));
    expect(named.decideName(scope, 'localhost')).toEqual({ allowed: false, reason: 'loopback' });
  });
});

describe('ReachPolicy paths', () => {
  it('reach:path-text — roots per namespace and workspace; relative, dotted and prefix-sharing paths are refused', () => {
    const p = new ReachPolicy(
      policy({
        files: { allowedRoots: ['/data/{namespace}', '/srv/{workspace}/docs/{namespace}', '/shared'] },
      }),
    );
    expect(p.rootsFor(scope)).toEqual(['/data/team-a', '/srv/acme/docs/team-a', '/shared']);
    expect(p.rootsFor(other)).toEqual(['/data/team-b', '/srv/beta/docs/team-b', '/shared']);
    const ok = (path: string, who = scope) => p.decidePathText(who, path);
    for (const path of [
      '/data/team-a',
      '/data/team-a/',
      '/data/team-a/handbook',
      '/data/team-a/handbook/',
      '/data/team-a//handbook',
      '/data/team-a/...',
      '/srv/acme/docs/team-a/x',
      '/shared/x',
    ])
      expect(ok(path), path).toEqual({ allowed: true });
    for (const path of [
      'data/team-a',
      './data/team-a',
      '',
      '/data/team-a/../team-b',
      '/data/team-a/..',
      '/data/team-a/./x',
      '/data/team-a/.',
      '/data/team-a/x/../../team-b',
      '/data/team-a-evil',
      '/data/team-a-evil/x',
      '/data/team-ab',
      '/data',
      '/data/',
      '/data/team-b',
      '/srv/acme/docs/team-b',
      '/sharedx',
      '/var/run/secrets/kubernetes.io/serviceaccount',
    ])
      expect(ok(path), path).toEqual({ allowed: false, reason: 'path-not-allowed' });
    expect(ok('/data/team-a/x', other).allowed).toBe(false);
    expect(ok('/data/team-b/x', other).allowed).toBe(true);
    // No roots (the default): no files data source anywhere.
    expect(new ReachPolicy(policy()).decidePathText(scope, '/data/team-a').allowed).toBe(false);
    expect(new ReachPolicy(policy()).rootsFor(scope)).toEqual([]);
  });

  it('a root of / admits every absolute path, still not a relative or dotted one', () => {
    const p = new ReachPolicy(policy({ files: { allowedRoots: ['/'] } }));
    expect(p.rootsFor(scope)).toEqual(['/']);
    expect(p.decidePathText(scope, '/').allowed).toBe(true);
    expect(p.decidePathText(scope, '/etc/passwd').allowed).toBe(true);
    expect(p.decidePathText(scope, 'etc/passwd').allowed).toBe(false);
    expect(p.decidePathText(scope, '/etc/../root').allowed).toBe(false);
  });

  it('a root written with a trailing slash admits the directory and what is below it, nothing beside it', () => {
    const p = new ReachPolicy(policy({ files: { allowedRoots: ['/data/', '/srv/{namespace}/'] } }));
    expect(p.rootsFor(scope)).toEqual(['/data', '/srv/team-a']);
    expect(p.decidePathText(scope, '/data').allowed).toBe(true);
    expect(p.decidePathText(scope, '/data/x').allowed).toBe(true);
    expect(p.decidePathText(scope, '/srv/team-a/docs').allowed).toBe(true);
    expect(p.decidePathText(scope, '/database').allowed).toBe(false);
    expect(p.decidePathText(scope, '/srv/team-ab').allowed).toBe(false);
  });

  it('stdio is allowed only when the policy says so', () => {
    expect(new ReachPolicy(policy()).stdioAllowed).toBe(false);
    expect(new ReachPolicy(policy({ stdio: 'allow' })).stdioAllowed).toBe(true);
  });
});

describe('TenantPolicySchema', () => {
  const refused = (input: unknown) => TenantPolicySchema.safeParse(input).success === false;

  it('reach:policy-schema — bad CIDRs, relative or dotted roots and unknown keys are refused; defaults are the secure ones', () => {
    for (const cidr of [
      '10.0.0.0/33',
      'fd00::/129',
      'banana',
      '10.0.0.0/8/8',
      '10.0.0.0/',
      '10.0.0.0/-1',
      '10.0.0.256/32',
      '10.0.0/8',
      'example.com',
      '',
    ]) {
      expect(refused({ network: { denyCidrs: [cidr] } }), `denyCidrs ${cidr}`).toBe(true);
      expect(refused({ network: { allow: { cidrs: [cidr] } } }), `allow ${cidr}`).toBe(true);
    }
    for (const cidr of ['10.0.0.0/8', '10.0.0.1', 'fd00::/8', '::1', '::ffff:10.0.0.0/104', '0.0.0.0/0'])
      expect(refused({ network: { denyCidrs: [cidr] } }), cidr).toBe(false);
    for (const root of ['data', './data', '', '/data/../etc', '/data/..', '/data/./x', '/..'])
      expect(refused({ files: { allowedRoots: [root] } }), `root ${JSON.stringify(root)}`).toBe(true);
    for (const root of ['/', '/data', '/data/{namespace}', '/srv/{workspace}/docs', '/data/...'])
      expect(refused({ files: { allowedRoots: [root] } }), root).toBe(false);
    for (const host of [
      'Bad_Host',
      'UPPER.example.com',
      '*',
      'a.*.example.com',
      '**.example.com',
      'example.com.',
    ])
      expect(refused({ network: { allow: { hosts: [host] } } }), host).toBe(true);
    for (const host of ['mcp.example.com', '*.svc.cluster.local', 'localhost'])
      expect(refused({ network: { allow: { hosts: [host] } } }), host).toBe(false);
    // Unknown keys at every level.
    expect(refused({ network: { allowAll: true } })).toBe(true);
    expect(refused({ files: { roots: ['/data'] } })).toBe(true);
    expect(refused({ network: { allow: { cidr: ['10.0.0.0/8'] } } })).toBe(true);
    expect(refused({ network: { namespaces: { 'team-a': { cidr: ['10.0.0.0/8'] } } } })).toBe(true);
    expect(refused({ stdio: 'deny', extra: 1 })).toBe(true);
    expect(refused({ network: { defaultAction: 'block' } })).toBe(true);
    expect(refused({ stdio: 'maybe' })).toBe(true);
    expect(policy()).toEqual({
      files: { allowedRoots: [] },
      network: { denyCidrs: [], defaultAction: 'allow', allow: { cidrs: [], hosts: [] }, namespaces: {} },
      stdio: 'deny',
      identity: { issuers: [] },
      workloads: {
        allowedImages: [],
        requireDigest: false,
        maxReplicas: 3,
        maxCpu: '1',
        maxMemory: '1Gi',
        externalEgress: 'deny',
      },
    });
    // Image prefixes end in / (registry.example.com would also match registry.example.com.evil.io).
    expect(refused({ workloads: { allowedImages: ['registry.example.com'] } })).toBe(true);
    expect(refused({ workloads: { allowedImages: ['registry.example.com/mcp/'] } })).toBe(false);
    expect(DEFAULT_TENANT_POLICY).toEqual(policy());
    expect(policy({ network: { namespaces: { 'team-a': {} } } }).network.namespaces['team-a']).toEqual({
      cidrs: [],
      hosts: [],
    });
  });

  it('names the path of a bad entry', () => {
    const result = TenantPolicySchema.safeParse({ network: { denyCidrs: ['10.0.0.0/8', 'banana'] } });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['network', 'denyCidrs', 1]);
    expect(result.error?.issues[0]?.message).toMatch(/CIDR/);
    const root = TenantPolicySchema.safeParse({ files: { allowedRoots: ['/ok', 'relative'] } });
    expect(root.error?.issues[0]?.path).toEqual(['files', 'allowedRoots', 1]);
  });
});
