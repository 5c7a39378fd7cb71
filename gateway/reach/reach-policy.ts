// The tenant reach policy compiled for decisions (D19, issue 20): is this address, this host name,
// this directory within what a tenant's resources may reach? Pure and synchronous; the network
// guard and the confined file reader apply it where connections and files are opened, and the
// operator applies it to resource specs before it renders them.
import { isIP } from 'node:net';
import { posix } from 'node:path';
import type { TenantPolicy, ReachAllow } from '../config/index.js';
import { AddressSet, normaliseAddress, type NormalAddress } from './address-set.js';
import { cidrContains, cidrOverlaps } from './cidr-blocks.js';

/** Why an address or a path is refused; stable words for conditions, logs and tests. */
export type ReachDenial =
  | 'loopback'
  | 'link-local'
  | 'unspecified'
  | 'multicast'
  | 'reserved'
  | 'gateway-address'
  | 'api-server'
  | 'denied-cidr'
  | 'not-allowed'
  | 'unix-socket'
  | 'path-not-allowed'
  | 'path-escapes-root'
  | 'stdio-not-allowed'
  | 'workload-alias';

export type ReachDecision =
  { readonly allowed: true } | { readonly allowed: false; readonly reason: ReachDenial };

/** Who is asking: the tenant namespace (the workspace name in a file) and the workspace. */
export interface ReachScope {
  readonly namespace: string;
  readonly workspace: string;
}

type BuiltIn = 'loopback' | 'link-local' | 'unspecified' | 'multicast' | 'reserved';

const BUILT_IN: readonly (readonly [string, BuiltIn])[] = [
  ['0.0.0.0/8', 'unspecified'],
  ['::/128', 'unspecified'],
  ['127.0.0.0/8', 'loopback'],
  ['::1/128', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['fe80::/10', 'link-local'],
  ['224.0.0.0/4', 'multicast'],
  ['ff00::/8', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
  // IPv4-compatible and other ::/96 spellings that normalisation did not turn into IPv4.
  ['::/96', 'reserved'],
];

/** Addresses that belong to the gateway itself or its control plane, found at start. */
export interface OwnAddresses {
  /** The gateway's (or operator's) interface addresses. */
  readonly gateway: readonly string[];
  /** The Kubernetes API server's addresses, when known. */
  readonly apiServer: readonly string[];
}

const OK: ReachDecision = { allowed: true };

function hostMatches(host: string, patterns: readonly string[]): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return patterns.some((pattern) =>
    pattern.startsWith('*.')
      ? name.endsWith(pattern.slice(1)) && name.length > pattern.length - 1
      : name === pattern,
  );
}

/** `true` when `path` is `root` or below it (both absolute and normalised). */
export function isWithin(path: string, root: string): boolean {
  if (root === '/') return path.startsWith('/');
  return path === root || path.startsWith(`${root}/`);
}

export class ReachPolicy {
  private readonly builtIn = new AddressSet<BuiltIn | 'gateway-address' | 'api-server'>();
  private readonly denied = new AddressSet<'denied-cidr'>();
  private readonly allowAll: { cidrs: AddressSet<'allow'>; hosts: readonly string[] };
  private readonly allowByNamespace = new Map<
    string,
    { cidrs: AddressSet<'allow'>; hosts: readonly string[] }
  >();

  constructor(
    readonly policy: TenantPolicy,
    private readonly own: OwnAddresses = { gateway: [], apiServer: [] },
  ) {
    for (const [cidr, tag] of BUILT_IN) this.builtIn.add(cidr, tag);
    for (const address of own.gateway) addAddress(this.builtIn, address, 'gateway-address');
    for (const address of own.apiServer) addAddress(this.builtIn, address, 'api-server');
    for (const cidr of policy.network.denyCidrs) this.denied.add(cidr, 'denied-cidr');
    this.allowAll = compileAllow(policy.network.allow);
    for (const [namespace, allow] of Object.entries(policy.network.namespaces))
      this.allowByNamespace.set(namespace, compileAllow(allow));
  }

  get stdioAllowed(): boolean {
    return this.policy.stdio === 'allow';
  }

  /** Decides one resolved address; `host` is the name it was resolved from (undefined for a literal). */
  decideAddress(scope: ReachScope, host: string | undefined, raw: string): ReachDecision {
    const address = normaliseAddress(raw);
    if (address === undefined) return { allowed: false, reason: 'reserved' };
    const own = this.allowByNamespace.get(scope.namespace) ?? NO_EXCEPTIONS;
    if (matchAllow(this.allowAll, address) || matchAllow(own, address)) return OK;
    const builtIn = this.builtIn.match(address);
    if (builtIn !== undefined) return { allowed: false, reason: builtIn };
    if (host !== undefined && (hostMatches(host, this.allowAll.hosts) || hostMatches(host, own.hosts)))
      return OK;
    const written = asWritten(raw);
    const deniedAsWritten = written !== undefined && this.denied.match(written) !== undefined;
    if (this.denied.match(address) !== undefined || deniedAsWritten)
      return { allowed: false, reason: 'denied-cidr' };
    return this.policy.network.defaultAction === 'allow' ? OK : { allowed: false, reason: 'not-allowed' };
  }

  /** Decides an address of a Service the operator runs for the scope (a source's workload mark,
   * D25): the admin's denyCidrs and defaultAction do not apply (they keep tenants out of the
   * cluster's addresses, and this one the operator rendered for the tenant), the built-in ranges
   * (loopback, link-local, the gateway's own and the API server's addresses) still do. */
  decideWorkloadAddress(raw: string): ReachDecision {
    const address = normaliseAddress(raw);
    if (address === undefined) return { allowed: false, reason: 'reserved' };
    const builtIn = this.builtIn.match(address);
    return builtIn === undefined ? OK : { allowed: false, reason: builtIn };
  }

  /** Decides a whole CIDR block (an egress rule of an MCP server the operator runs, D25): allowed
   * when an allow-list block contains all of it, refused when any of it is in a built-in range, the
   * gateway's or API server's addresses or denyCidrs, else the default action, like an address. */
  decideCidr(scope: ReachScope, cidr: string): ReachDecision {
    const allows = [
      ...this.policy.network.allow.cidrs,
      ...(this.policy.network.namespaces[scope.namespace]?.cidrs ?? []),
    ];
    if (allows.some((allow) => cidrContains(allow, cidr))) return OK;
    for (const [block, tag] of BUILT_IN)
      if (cidrOverlaps(block, cidr)) return { allowed: false, reason: tag };
    for (const address of this.own.gateway)
      if (cidrContains(cidr, address)) return { allowed: false, reason: 'gateway-address' };
    for (const address of this.own.apiServer)
      if (cidrContains(cidr, address)) return { allowed: false, reason: 'api-server' };
    if (this.policy.network.denyCidrs.some((denied) => cidrOverlaps(denied, cidr)))
      return { allowed: false, reason: 'denied-cidr' };
    return this.policy.network.defaultAction === 'allow' ? OK : { allowed: false, reason: 'not-allowed' };
  }

  /** What can be decided from a host name alone, before resolving it: names that always mean
   * loopback, and (with defaultAction deny) names no allow-list mentions. Undefined: resolve it. */
  decideName(scope: ReachScope, host: string): ReachDecision | undefined {
    const name = host.toLowerCase().replace(/\.$/, '');
    if (name === 'localhost' || name.endsWith('.localhost')) {
      const literal = this.decideAddress(scope, undefined, '127.0.0.1');
      return literal.allowed ? undefined : literal;
    }
    return undefined;
  }

  /** The directories the scope's files data sources may read, placeholders filled in. */
  rootsFor(scope: ReachScope): readonly string[] {
    // normalize keeps a trailing slash ('/data/'), which isWithin would never match: drop it.
    return this.policy.files.allowedRoots.map((root) =>
      posix
        .normalize(root.replaceAll('{namespace}', scope.namespace).replaceAll('{workspace}', scope.workspace))
        .replace(/(.)\/$/, '$1'),
    );
  }

  /** Decides a files data source's `path` as written (the gateway also checks the real path). */
  decidePathText(scope: ReachScope, path: string): ReachDecision {
    if (!path.startsWith('/') || path.split('/').some((part) => part === '..' || part === '.'))
      return { allowed: false, reason: 'path-not-allowed' };
    const normal = posix.normalize(path).replace(/(.)\/$/, '$1');
    return this.rootsFor(scope).some((root) => isWithin(normal, root))
      ? OK
      : { allowed: false, reason: 'path-not-allowed' };
  }
}

const NO_EXCEPTIONS = compileAllow({ cidrs: [], hosts: [] });

/** An IPv6 address as written, for the admin's deny list only: normalisation turns 64:ff9b::808:808
 * into 8.8.8.8, which a denied 64:ff9b::/96 block would otherwise never match. */
function asWritten(raw: string): NormalAddress | undefined {
  const text = raw
    .trim()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/%.*$/, '');
  return isIP(text) === 6 ? { address: text, family: 'ipv6' } : undefined;
}

function addAddress(set: AddressSet<string>, address: string, tag: string): void {
  const normal = normaliseAddress(address);
  if (normal !== undefined) set.add(normal.address, tag);
}

function compileAllow(allow: ReachAllow): { cidrs: AddressSet<'allow'>; hosts: readonly string[] } {
  const cidrs = new AddressSet<'allow'>();
  for (const cidr of allow.cidrs) cidrs.add(cidr, 'allow');
  return { cidrs, hosts: allow.hosts };
}

function matchAllow(allow: { cidrs: AddressSet<'allow'> }, address: NormalAddress): boolean {
  return allow.cidrs.match(address) !== undefined;
}

/** A sentence for a refusal: the reason in words, never an address a name resolved to. */
export function describeDenial(reason: ReachDenial): string {
  switch (reason) {
    case 'loopback':
      return 'a loopback address';
    case 'link-local':
      return 'a link-local address (cloud metadata lives there)';
    case 'unspecified':
      return 'an unspecified address';
    case 'multicast':
      return 'a multicast address';
    case 'reserved':
      return 'a reserved address';
    case 'gateway-address':
      return "one of the gateway's own addresses";
    case 'api-server':
      return 'the Kubernetes API server';
    case 'denied-cidr':
      return 'an address range the policy denies (policy.network.denyCidrs)';
    case 'not-allowed':
      return 'an address no allow-list names (policy.network.defaultAction is deny)';
    case 'unix-socket':
      return 'a Unix socket (only TCP targets are allowed)';
    case 'path-not-allowed':
      return 'a path outside every allowed root (policy.files.allowedRoots)';
    case 'path-escapes-root':
      return 'a path whose real location (after symbolic links) is outside its allowed root';
    case 'stdio-not-allowed':
      return 'a stdio source (local processes are not allowed; policy.stdio is deny)';
    case 'workload-alias':
      return "a workload Service name that is an alias (CNAME, e.g. an ExternalName Service) or could not be checked: the operator renders a ClusterIP Service, so it is not the workload's";
  }
}
