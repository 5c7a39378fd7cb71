// The operator's half of the tenant reach policy (issue 20, D19): the hosts a libpq connection
// string names in both its forms, the names to resolve before planning, and the refusals as
// conditions (AddressNotAllowed, PathNotAllowed) whose messages name the field at fault and never
// the address a name resolved to or the connection string.
import { describe, expect, it } from 'vitest';
import { TenantPolicySchema } from '../../../gateway/config/index.js';
import { ReachPolicy } from '../../../gateway/reach/index.js';
import {
  connectionStringHosts,
  namesToResolve,
  reachCheck,
  resolveNames,
} from '../../../operator/controllers/plan/reach-check.js';

const scope = { namespace: 'team-a', workspace: 'acme' };

describe('connectionStringHosts', () => {
  it('reads the hosts of URI connection strings', () => {
    for (const [text, hosts] of [
      ['postgres://user:pw@db.example.com:5432/app', ['db.example.com']],
      ['postgresql://user:pw@db.example.com/app?sslmode=require', ['db.example.com']],
      ['POSTGRES://user@DB.example.com/app', ['DB.example.com']],
      ['postgres://db.example.com', ['db.example.com']],
      // A password with an encoded or a bare '@': the host follows the last one.
      ['postgres://user:p%40ss@db.example.com/app', ['db.example.com']],
      ['postgres://user:p@ss@db.example.com/app', ['db.example.com']],
      ['postgres://u@h1:5432,h2:5433/db', ['h1', 'h2']],
      ['postgres://u@h1,10.0.0.5:5433/db', ['h1', '10.0.0.5']],
      ['postgres://u:pw@[::1]:5432/db', ['::1']],
      ['postgres://u:pw@[fd00::5]/db', ['fd00::5']],
      ['postgres://u:pw@127.0.0.1:5432/db', ['127.0.0.1']],
      // No host: the default (local) host.
      ['postgres:///db', ['']],
      ['postgres://user@/db', ['']],
      // Unix socket directories, in the query (which then replaces the empty authority) or percent-encoded as the host.
      ['postgres:///db?host=/var/run/postgresql', ['/var/run/postgresql']],
      ['postgres://%2Fvar%2Frun%2Fpostgresql/db', ['/var/run/postgresql']],
      ['postgres://u@db.example.com/app?hostaddr=10.0.0.5', ['db.example.com', '10.0.0.5']],
      ['postgres://u@db.example.com/app?host=h2,h3', ['db.example.com', 'h2', 'h3']],
    ] as const)
      expect(connectionStringHosts(text), text).toEqual(hosts);
  });

  it('reads the hosts of key=value connection strings', () => {
    for (const [text, hosts] of [
      ['host=db.example.com port=5432 dbname=app', ['db.example.com']],
      ['host=db.example.com hostaddr=10.0.0.5 dbname=app', ['db.example.com', '10.0.0.5']],
      ["host='db.example.com' user=app password='it''s'", ['db.example.com']],
      ["dbname=app host = 'h1,h2'", ['h1', 'h2']],
      ['host=/var/run/postgresql dbname=app', ['/var/run/postgresql']],
      ['  host=h1  ', ['h1']],
      // No host key: the default (local) host; a key that merely ends in "host" is not one.
      ['dbname=app user=app', ['']],
      ['myhost=evil.example dbname=app', ['']],
    ] as const)
      expect(connectionStringHosts(text), text).toEqual(hosts);
  });
});

describe('namesToResolve', () => {
  it('lists each host name once, lower-cased, and no literal, socket path or default host', () => {
    expect(
      namesToResolve(
        [
          'https://API.example.com/mcp',
          'http://api.example.com:8080/other',
          'http://10.0.0.1/',
          'http://[::1]:3000/',
          'not a url',
        ],
        [
          'postgres://u:pw@DB.example.com/app',
          'postgres:///app?host=/var/run/postgresql',
          'host=10.0.0.5 dbname=x',
          'host=h1,h2',
          'dbname=x',
        ],
      ),
    ).toEqual(['api.example.com', 'db.example.com', 'h1', 'h2']);
    expect(namesToResolve([], [])).toEqual([]);
  });

  it('resolveNames asks the resolver once per name and maps the answers', async () => {
    const asked: string[] = [];
    const answers = await resolveNames(['a.test', 'b.test'], (host) => {
      asked.push(host);
      return Promise.resolve(host === 'a.test' ? ['10.0.0.1'] : []);
    });
    expect(asked.sort()).toEqual(['a.test', 'b.test']);
    expect([...answers]).toEqual([
      ['a.test', ['10.0.0.1']],
      ['b.test', []],
    ]);
  });
});

describe('reachCheck', () => {
  const policy = new ReachPolicy(
    TenantPolicySchema.parse({
      files: { allowedRoots: ['/data/{namespace}'] },
      network: {
        denyCidrs: ['10.0.0.0/8'],
        allow: { hosts: ['*.allowed.example'] },
        namespaces: { 'team-a': { cidrs: ['10.9.9.9/32'] } },
      },
    }),
  );
  const resolved = new Map<string, readonly string[]>([
    ['internal.example.com', ['10.1.2.3']],
    ['metadata.example.com', ['169.254.169.254']],
    ['public.example.com', ['203.0.113.10']],
    ['mixed.example.com', ['203.0.113.10', '10.1.2.3']],
    ['db.allowed.example', ['10.1.2.4']],
    ['loop.allowed.example', ['127.0.0.1']],
    ['team.example.com', ['10.9.9.9']],
  ]);
  const check = reachCheck(policy, scope, resolved);

  it('refuses URLs whose host is, or resolves to, a denied address with AddressNotAllowed naming the field and the host', () => {
    for (const [url, words] of [
      ['http://127.0.0.1:8080/mcp', 'loopback'],
      ['http://[::1]:8080/mcp', 'loopback'],
      ['http://[::ffff:7f00:1]/mcp', 'loopback'],
      ['http://0x7f.1/mcp', 'loopback'],
      ['http://localhost:3000/mcp', 'loopback'],
      ['http://api.localhost/mcp', 'loopback'],
      ['http://169.254.169.254/latest/meta-data', 'link-local'],
      ['http://metadata.example.com/latest', 'link-local'],
      ['http://internal.example.com/mcp', 'denyCidrs'],
      ['http://Internal.Example.com/mcp', 'denyCidrs'],
      ['http://mixed.example.com/mcp', 'denyCidrs'],
      ['http://loop.allowed.example/mcp', 'loopback'],
    ] as const) {
      const condition = check.url('spec.url', url);
      expect(condition, url).toMatchObject({ ready: false, reason: 'AddressNotAllowed' });
      expect(condition?.message, url).toMatch(/^spec\.url: host \S+ is not allowed by the tenant policy: /);
      expect(condition?.message, url).toContain(words);
    }
  });

  it('never puts the resolved address in a message', () => {
    for (const [host, address] of [
      ['internal.example.com', '10.1.2.3'],
      ['metadata.example.com', '169.254.169.254'],
      ['mixed.example.com', '10.1.2.3'],
    ] as const) {
      const message = check.url('spec.http.url', `https://${host}/x`)?.message ?? '';
      expect(message).toContain(`spec.http.url: host ${host} `);
      expect(message).not.toContain(address);
    }
  });

  it('admits public addresses, names allowed by a host or namespace CIDR exception, and names it could not resolve', () => {
    for (const url of [
      'https://public.example.com/mcp',
      'https://203.0.113.10/mcp',
      'https://db.allowed.example/mcp',
      'https://team.example.com/mcp',
      'https://10.9.9.9/mcp',
      'https://unresolved.example.com/mcp',
      'not a url',
    ])
      expect(check.url('spec.url', url), url).toBeUndefined();
    // The namespace exception is team-a's only.
    const other = reachCheck(policy, { namespace: 'team-b', workspace: 'b' }, resolved);
    expect(other.url('spec.url', 'https://team.example.com/mcp')?.reason).toBe('AddressNotAllowed');
  });

  it('refuses paths outside the roots with PathNotAllowed naming the field and the path', () => {
    expect(check.path('spec.files.path', '/data/team-a/docs')).toBeUndefined();
    for (const path of [
      '/data/team-b',
      '/data/team-a/../team-b',
      'data/team-a',
      '/data/team-a-evil',
      '/etc',
    ]) {
      const condition = check.path('spec.files.path', path);
      expect(condition, path).toEqual({
        ready: false,
        reason: 'PathNotAllowed',
        message: `spec.files.path: path ${path} is not allowed by the tenant policy: a path outside every allowed root (policy.files.allowedRoots)`,
      });
    }
  });

  it('refuses connection strings naming a denied host, a Unix socket or the default local host, without naming the host', () => {
    const field = 'spec.postgres.connectionString';
    for (const [text, words] of [
      ['postgres://app:s3cret@internal.example.com:5432/db', 'denyCidrs'],
      ['postgres://app:s3cret@127.0.0.1/db', 'loopback'],
      ['postgres://app:s3cret@[::1]/db', 'loopback'],
      ['postgres://app:s3cret@public.example.com,metadata.example.com/db', 'link-local'],
      ['postgres://app:s3cret@%2Fvar%2Frun%2Fpostgresql/db', 'Unix socket'],
      ['host=/var/run/postgresql dbname=db password=s3cret', 'Unix socket'],
      ['host=internal.example.com dbname=db password=s3cret', 'denyCidrs'],
      ['dbname=db password=s3cret', 'loopback'],
      ['postgres:///db', 'loopback'],
    ] as const) {
      const condition = check.connectionString(field, text);
      expect(condition, text).toMatchObject({ ready: false, reason: 'AddressNotAllowed' });
      expect(condition?.message, text).toMatch(
        /^spec\.postgres\.connectionString: the database host is not allowed by the tenant policy: /,
      );
      expect(condition?.message, text).toContain(words);
      for (const secret of ['s3cret', 'internal.example.com', 'metadata.example.com', '10.1.2.3', '169.254'])
        expect(condition?.message, text).not.toContain(secret);
    }
  });

  it('admits connection strings whose every host is allowed', () => {
    for (const text of [
      'postgres://app:pw@public.example.com:5432/db',
      'postgres://app:pw@db.allowed.example/db',
      'postgres://app:pw@public.example.com,203.0.113.11/db',
      'host=public.example.com dbname=db',
    ])
      expect(check.connectionString('spec.postgres.connectionString', text), text).toBeUndefined();
  });
});

describe('connectionStringHosts edge cases', () => {
  it('reach:connection-string-edges — a query host replaces an empty authority, and a malformed escape never throws', () => {
    expect(connectionStringHosts('postgres:///db?host=db.example.com')).toEqual(['db.example.com']);
    expect(connectionStringHosts('postgres://u:p@ho%zzst/db')).toEqual(['ho%zzst']);
    expect(connectionStringHosts('postgres://u:p@/db')).toEqual(['']);
  });
});
