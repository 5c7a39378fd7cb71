// Enforces the network half of the reach policy where connections are made (D19): every TCP
// connection a tenant's source opens goes through resolve(), which looks the name up once, refuses
// when any address it resolves to is denied, and hands back the address to dial, so the check and
// the connection use the same answer (no DNS rebinding in between). Redirects and next-page URLs
// open new connections and are checked the same way. Undici (fetch, the MCP relay) dials through
// connector(); PostgreSQL through socket().
import { lookup as dnsLookup, promises as dnsPromises, type LookupAddress } from 'node:dns';
import { Socket, isIP } from 'node:net';
import type { Agent, buildConnector } from 'undici';
import { undici } from '../platform/undici-lazy.js';
import { AUTHORIZATION_SERVER_POOL } from './authorization-server-bounds.js';
import { fetchThrough } from './fetch-through.js';
import { ReachDeniedError } from './reach-denied-error.js';
import type { ReachPolicy, ReachScope } from './reach-policy.js';

/** The one Service a source the operator runs may reach besides the policy (D25). */
export interface WorkloadTarget {
  readonly host: string;
  readonly port: number;
}

export type Resolver = (host: string) => Promise<readonly LookupAddress[]>;

/** The names a name is an alias of (its CNAME records), [] when it is none. */
export type AliasResolver = (host: string) => Promise<readonly string[]>;

/** A name with no CNAME answers ENODATA (or ENOTFOUND); anything else is not an answer. */
const systemAliases: AliasResolver = async (host) => {
  try {
    // The trailing dot makes it absolute: no search domain is tried first (pods have ndots 5).
    return await dnsPromises.resolveCname(host.endsWith('.') ? host : `${host}.`);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'ENODATA' || code === 'ENOTFOUND') return [];
    throw error;
  }
};

const systemResolver: Resolver = (host) =>
  new Promise((resolve, reject) => {
    dnsLookup(host, { all: true, order: 'verbatim' }, (error, addresses) => {
      if (error !== null) reject(error);
      else resolve(addresses);
    });
  });

export interface ResolvedTarget {
  readonly address: string;
  readonly family: 4 | 6;
}

export class NetworkGuard {
  private sharedAgent: Agent | undefined;
  private authorizationServerAgent: Agent | undefined;
  private readonly workloadGuards = new Map<string, NetworkGuard>();

  constructor(
    private readonly policy: ReachPolicy,
    readonly scope: ReachScope,
    private readonly resolver: Resolver = systemResolver,
    private readonly workload?: WorkloadTarget,
    private readonly aliases: AliasResolver = systemAliases,
  ) {}

  /** The guard of a source the operator runs: this one, plus exactly `target`'s host and port when
   * the host is a Service of the scope's own namespace (`<name>.<namespace>.svc.…`); any other
   * mark is ignored, so even a forged one reaches nothing outside the tenant's namespace. */
  forWorkload(target: WorkloadTarget): NetworkGuard {
    const labels = target.host.split('.');
    if (labels.length < 3 || labels[1] !== this.scope.namespace || labels[2] !== 'svc') return this;
    const key = `${target.host}:${target.port}`;
    let guard = this.workloadGuards.get(key);
    if (guard === undefined) {
      guard = new NetworkGuard(this.policy, this.scope, this.resolver, target, this.aliases);
      this.workloadGuards.set(key, guard);
    }
    return guard;
  }

  /** Whether the policy lets workspaces run stdio MCP sources. */
  get stdioAllowed(): boolean {
    return this.policy.stdioAllowed;
  }

  /** The address to dial for `host`, or a ReachDeniedError. */
  async resolve(rawHost: string, port?: number): Promise<ResolvedTarget> {
    const host = rawHost.startsWith('[') && rawHost.endsWith(']') ? rawHost.slice(1, -1) : rawHost;
    if (this.workload !== undefined && host === this.workload.host && port === this.workload.port)
      return this.resolveWorkload(host);
    const literal = isIP(host.replace(/%.*$/, ''));
    if (literal !== 0) {
      const decision = this.policy.decideAddress(this.scope, undefined, host);
      if (!decision.allowed) throw new ReachDeniedError(decision.reason, host);
      return { address: host, family: literal === 4 ? 4 : 6 };
    }
    const byName = this.policy.decideName(this.scope, host);
    if (byName !== undefined && !byName.allowed) throw new ReachDeniedError(byName.reason, host);
    const addresses = await this.resolver(host);
    if (addresses.length === 0)
      throw Object.assign(new Error(`${host} did not resolve`), { code: 'ENOTFOUND' });
    for (const { address } of addresses) {
      const decision = this.policy.decideAddress(this.scope, host, address);
      if (!decision.allowed) throw new ReachDeniedError(decision.reason, host);
    }
    const first = addresses[0] as LookupAddress;
    return { address: first.address, family: first.family === 4 ? 4 : 6 };
  }

  /** The workload's Service: resolved, and only the built-in ranges refused. The operator renders a
   * ClusterIP Service, whose name is never an alias; a tenant can turn its own Service into an
   * ExternalName (a CNAME to any name: another tenant's Service, an internal address the admin
   * denies), which would carry the exception elsewhere, so an alias, or a lookup that cannot tell,
   * is refused. */
  private async resolveWorkload(host: string): Promise<ResolvedTarget> {
    const aliases = await this.aliases(host).catch(() => undefined);
    if (aliases === undefined || aliases.length > 0) throw new ReachDeniedError('workload-alias', host);
    const addresses = await this.resolver(host);
    if (addresses.length === 0)
      throw Object.assign(new Error(`${host} did not resolve`), { code: 'ENOTFOUND' });
    for (const { address } of addresses) {
      const decision = this.policy.decideWorkloadAddress(address);
      if (!decision.allowed) throw new ReachDeniedError(decision.reason, host);
    }
    const first = addresses[0] as LookupAddress;
    return { address: first.address, family: first.family === 4 ? 4 : 6 };
  }

  /** An undici connector that dials only what resolve() allows; TLS still verifies the name. */
  connector(options: buildConnector.BuildOptions = {}): buildConnector.connector {
    const base = undici().buildConnector(options);
    return (opts, callback) => {
      const port = Number(opts.port === '' ? (opts.protocol === 'https:' ? 443 : 80) : opts.port);
      this.resolve(opts.hostname, port).then(
        (target) => {
          const named = isIP(opts.hostname) === 0;
          base(
            {
              ...opts,
              hostname: target.address,
              ...(named && opts.servername === undefined ? { servername: opts.hostname } : {}),
            },
            callback,
          );
        },
        (error: unknown) => callback(error as Error, null),
      );
    };
  }

  /** A keep-alive pool whose every connection is checked. */
  agent(options: Agent.Options = {}): Agent {
    return new (undici().Agent)({ ...options, connect: this.connector() });
  }

  /** fetch through one shared checked pool (redirects included: each hop dials through it); calls to
   * an authorization server through a checked pool of their own, with its idle and stall bounds
   * (authorization-server-bounds.ts). */
  fetch(pool: 'shared' | 'authorization-server' = 'shared'): typeof fetch {
    if (pool === 'authorization-server')
      return fetchThrough(() => (this.authorizationServerAgent ??= this.agent(AUTHORIZATION_SERVER_POOL)));
    return (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
      this.sharedAgent ??= this.agent();
      const undiciFetch = undici().fetch;
      return undiciFetch(input as Parameters<typeof undiciFetch>[0], {
        ...(init as Parameters<typeof undiciFetch>[1]),
        dispatcher: this.sharedAgent,
      });
    };
  }

  /** A TCP socket for node-postgres whose connect() dials only what resolve() allows; a Unix socket
   * path (a local file) is refused. `label` names the target in refusals (the host sits inside a
   * connection string, which is a secret). */
  socket(label = 'the database host'): Socket {
    const socket = new Socket();
    const connect = socket.connect.bind(socket) as (port: number, host: string) => Socket;
    const guarded = (port: unknown, host?: unknown): Socket => {
      if (typeof port === 'string' && host === undefined) {
        process.nextTick(() => socket.destroy(new ReachDeniedError('unix-socket', label)));
        return socket;
      }
      const name = typeof host === 'string' && host !== '' ? host : 'localhost';
      // A socket destroyed while the name was being looked up (pg's connectionTimeoutMillis,
      // client.end()) stays closed: connect() on a destroyed Socket would reopen it.
      this.resolve(name).then(
        (target) => {
          if (!socket.destroyed) connect(Number(port), target.address);
        },
        (error: unknown) =>
          socket.destroy(
            error instanceof ReachDeniedError ? new ReachDeniedError(error.reason, label) : (error as Error),
          ),
      );
      return socket;
    };
    (socket as unknown as { connect: typeof guarded }).connect = guarded;
    return socket;
  }

  async close(): Promise<void> {
    const workloads = [...this.workloadGuards.values()];
    this.workloadGuards.clear();
    await Promise.all(workloads.map((g) => g.close()));
    const agents = [this.sharedAgent, this.authorizationServerAgent];
    this.sharedAgent = undefined;
    this.authorizationServerAgent = undefined;
    for (const agent of agents) await agent?.close().catch(() => undefined);
  }
}
