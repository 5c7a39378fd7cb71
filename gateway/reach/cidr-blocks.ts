// Whole address blocks, for decisions about a range rather than one address (the egress CIDRs of an
// MCP server the operator runs, D25): CIDR blocks are nested or disjoint, so two overlap exactly when
// one contains the other's first address.
import { BlockList } from 'node:net';
import { parseCidr, type ParsedCidr } from '../config/index.js';

/** Whether every address of `inner` is in `outer` (both CIDR text; false when either is invalid). */
export function cidrContains(outer: string, inner: string): boolean {
  const a = parseCidr(outer);
  const b = parseCidr(inner);
  return a !== undefined && b !== undefined && contains(a, b);
}

/** Whether the blocks share at least one address. */
export function cidrOverlaps(first: string, second: string): boolean {
  const a = parseCidr(first);
  const b = parseCidr(second);
  return a !== undefined && b !== undefined && (contains(a, b) || contains(b, a));
}

function contains(outer: ParsedCidr, inner: ParsedCidr): boolean {
  if (outer.family !== inner.family || inner.prefix < outer.prefix) return false;
  const list = new BlockList();
  list.addSubnet(outer.address, outer.prefix, outer.family);
  return list.check(inner.address, inner.family);
}

/** RFC 1918, shared address space (RFC 6598) and unique local IPv6: the ranges that stay inside a
 * cluster or a company network. */
export const PRIVATE_CIDRS: readonly string[] = [
  '10.0.0.0/8',
  '172.16.0.0/12',
  '192.168.0.0/16',
  '100.64.0.0/10',
  'fc00::/7',
];
