// The operator's half of the tenant reach policy (D19): before it renders a resource it decides the
// paths and network targets the resource names, and refuses with a condition (PathNotAllowed,
// AddressNotAllowed) what the policy denies. Host names are resolved first (the operator sees the
// cluster's DNS as the gateways do) so the plan stays synchronous; a name that does not resolve
// here is left to the gateways, which decide again on the address they dial.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import {
  describeDenial,
  type ReachDecision,
  type ReachPolicy,
  type ReachScope,
} from '../../../gateway/reach/index.js';
import type { ReadyCondition } from './ready-condition.js';

/** What the plan asks; each answer is a refusal condition, or undefined when allowed. */
export interface ReachCheck {
  url(field: string, url: string): ReadyCondition | undefined;
  path(field: string, path: string): ReadyCondition | undefined;
  connectionString(field: string, connectionString: string): ReadyCondition | undefined;
}

export type NameResolver = (host: string) => Promise<readonly string[]>;

const RESOLVE_TIMEOUT_MS = 2000;

export const systemNameResolver: NameResolver = async (host) => {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<readonly string[]>((resolve) => {
    timer = setTimeout(() => resolve([]), RESOLVE_TIMEOUT_MS);
  });
  try {
    return await Promise.race([
      lookup(host, { all: true }).then(
        (addresses) => addresses.map((a) => a.address),
        () => [],
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
};

function hostOfUrl(url: string): string | undefined {
  try {
    return new URL(url).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return undefined;
  }
}

/** The hosts a libpq connection string names (URI or key=value form); '' stands for the default
 * (local) host, and a leading '/' for a Unix socket directory. */
export function connectionStringHosts(text: string): string[] {
  const trimmed = text.trim();
  const hosts: string[] = [];
  if (/^postgres(ql)?:\/\//i.test(trimmed)) {
    const rest = trimmed.replace(/^postgres(ql)?:\/\//i, '');
    const authority = rest.split(/[/?]/, 1)[0] ?? '';
    const hostPart = authority.includes('@') ? authority.slice(authority.lastIndexOf('@') + 1) : authority;
    const authorityHosts: string[] = [];
    for (const entry of hostPart.split(',')) {
      const host = entry.startsWith('[') ? entry.slice(1, entry.indexOf(']')) : (entry.split(':')[0] ?? '');
      // A malformed escape is kept as written: a condition names it, the reconcile never throws.
      let decoded = host;
      try {
        decoded = decodeURIComponent(host);
      } catch {
        decoded = host;
      }
      authorityHosts.push(decoded);
    }
    const query = rest.includes('?') ? rest.slice(rest.indexOf('?') + 1) : '';
    const params = new URLSearchParams(query);
    const queryHosts: string[] = [];
    for (const key of ['host', 'hostaddr'])
      for (const value of params.getAll(key)) queryHosts.push(...value.split(','));
    // postgres:///db?host=h names only h: an empty authority is not the default host then.
    hosts.push(
      ...(queryHosts.length > 0 ? authorityHosts.filter((h) => h !== '') : authorityHosts),
      ...queryHosts,
    );
  } else {
    for (const match of trimmed.matchAll(/\b(host|hostaddr)\s*=\s*('(?:[^'\\]|\\.)*'|\S+)/g)) {
      const value = (match[2] ?? '').replace(/^'|'$/g, '');
      hosts.push(...value.split(','));
    }
    if (hosts.length === 0) hosts.push('');
  }
  return hosts.map((h) => h.trim());
}

/** Every host name (not literal) a set of resources names, to resolve before planning. */
export function namesToResolve(urls: readonly string[], connectionStrings: readonly string[]): string[] {
  const names = new Set<string>();
  for (const url of urls) {
    const host = hostOfUrl(url);
    if (host !== undefined && host !== '' && isIP(host) === 0) names.add(host.toLowerCase());
  }
  for (const text of connectionStrings)
    for (const host of connectionStringHosts(text))
      if (host !== '' && !host.startsWith('/') && isIP(host) === 0) names.add(host.toLowerCase());
  return [...names];
}

export async function resolveNames(
  names: readonly string[],
  resolver: NameResolver = systemNameResolver,
): Promise<ReadonlyMap<string, readonly string[]>> {
  const answers = await Promise.all(names.map(async (name) => [name, await resolver(name)] as const));
  return new Map(answers);
}

export function reachCheck(
  policy: ReachPolicy,
  scope: ReachScope,
  resolved: ReadonlyMap<string, readonly string[]>,
): ReachCheck {
  const refuse = (field: string, what: string, decision: ReachDecision): ReadyCondition | undefined =>
    decision.allowed
      ? undefined
      : {
          ready: false,
          reason: decision.reason.startsWith('path') ? 'PathNotAllowed' : 'AddressNotAllowed',
          message: `${field}: ${what} is not allowed by the tenant policy: ${describeDenial(decision.reason)}`,
        };
  const decideHost = (host: string): ReachDecision => {
    if (isIP(host) !== 0) return policy.decideAddress(scope, undefined, host);
    const byName = policy.decideName(scope, host);
    if (byName !== undefined) return byName;
    for (const address of resolved.get(host.toLowerCase()) ?? []) {
      const decision = policy.decideAddress(scope, host, address);
      if (!decision.allowed) return decision;
    }
    return { allowed: true };
  };
  return {
    url(field, url) {
      const host = hostOfUrl(url);
      if (host === undefined) return undefined;
      return refuse(field, `host ${host}`, decideHost(host));
    },
    path(field, path) {
      return refuse(field, `path ${path}`, policy.decidePathText(scope, path));
    },
    connectionString(field, text) {
      for (const host of connectionStringHosts(text)) {
        if (host.startsWith('/'))
          return refuse(field, 'the database host', { allowed: false, reason: 'unix-socket' });
        const refusal = refuse(field, 'the database host', decideHost(host === '' ? 'localhost' : host));
        if (refusal !== undefined) return refusal;
      }
      return undefined;
    },
  };
}
