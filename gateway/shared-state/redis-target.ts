// Which Redis the replicas share, from the one `sharedState.redis.url` secret:
//   redis://[user:password@]host:port[/db]      one server (rediss:// for TLS)
//   redis-sentinel://[user:password@]host:port[,host:port…]/master[/db]   Sentinel: the master's name
//   redis-cluster://[user:password@]host:port[,host:port…]               Cluster: any seed nodes
// Credentials in the URL go to the data nodes (Sentinels are asked without them). Parsing never
// echoes the URL in an error: it may carry a password.
export interface RedisNode {
  readonly host: string;
  readonly port: number;
}

export type RedisTarget =
  | { readonly mode: 'standalone'; readonly url: string; readonly tls: boolean }
  | {
      readonly mode: 'sentinel';
      readonly sentinels: readonly RedisNode[];
      readonly masterName: string;
      readonly db: number;
      readonly username?: string;
      readonly password?: string;
    }
  | {
      readonly mode: 'cluster';
      readonly nodes: readonly RedisNode[];
      readonly username?: string;
      readonly password?: string;
    };

export class RedisUrlError extends Error {
  constructor(problem: string) {
    super(`sharedState.redis.url: ${problem}`);
    this.name = 'RedisUrlError';
  }
}

function nodesOf(hosts: string, defaultPort: number): RedisNode[] {
  return hosts.split(',').map((entry) => {
    const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(entry.trim());
    const port = Number(match?.[2] ?? defaultPort);
    if (match === null || port < 1 || port > 65_535)
      throw new RedisUrlError('each node must be host or host:port');
    return { host: (match[1] as string).replace(/^\[(.*)\]$/, '$1'), port };
  });
}

/** user:password@ of a multi-host URL (URL() cannot parse comma-separated hosts). */
function credentials(authority: string): { auth: { username?: string; password?: string }; hosts: string } {
  const at = authority.lastIndexOf('@');
  if (at < 0) return { auth: {}, hosts: authority };
  const userInfo = authority.slice(0, at);
  const colon = userInfo.indexOf(':');
  const username = decodeURIComponent(colon < 0 ? userInfo : userInfo.slice(0, colon));
  const password = colon < 0 ? undefined : decodeURIComponent(userInfo.slice(colon + 1));
  return {
    auth: {
      ...(username === '' ? {} : { username }),
      ...(password === undefined ? {} : { password }),
    },
    hosts: authority.slice(at + 1),
  };
}

export function parseRedisTarget(url: string): RedisTarget {
  const scheme = /^([a-z-]+):\/\//.exec(url)?.[1];
  if (scheme === 'redis' || scheme === 'rediss') return { mode: 'standalone', url, tls: scheme === 'rediss' };
  if (scheme !== 'redis-sentinel' && scheme !== 'redis-cluster')
    throw new RedisUrlError('must start with redis://, rediss://, redis-sentinel:// or redis-cluster://');
  const rest = url.slice(scheme.length + 3);
  const slash = rest.indexOf('/');
  const authority = slash < 0 ? rest : rest.slice(0, slash);
  const path = slash < 0 ? '' : rest.slice(slash + 1);
  const { auth, hosts } = credentials(authority);
  if (hosts === '') throw new RedisUrlError('names no node');
  if (scheme === 'redis-cluster') {
    if (path !== '') throw new RedisUrlError('a cluster URL has no path (Cluster has one database)');
    return { mode: 'cluster', nodes: nodesOf(hosts, 6379), ...auth };
  }
  const [masterName, db = '0', ...extra] = path.split('/');
  if (masterName === undefined || masterName === '' || extra.length > 0 || !/^\d{1,2}$/.test(db))
    throw new RedisUrlError('a sentinel URL ends in /<master name>[/<db>]');
  return {
    mode: 'sentinel',
    sentinels: nodesOf(hosts, 26379),
    masterName: decodeURIComponent(masterName),
    db: Number(db),
    ...auth,
  };
}
