// Sets of IP ranges (node's BlockList) that see through the ways one address is spelled as
// another: IPv4-mapped (::ffff:127.0.0.1, ::ffff:7f00:1), IPv4-compatible (::127.0.0.1) and the
// NAT64 well-known prefix (64:ff9b::7f00:1) all count as the IPv4 address they carry; zone ids
// (fe80::1%eth0) and brackets are dropped. Every address is normalised before it is matched.
import { BlockList, isIP } from 'node:net';
import { parseCidr } from '../config/index.js';

export interface NormalAddress {
  readonly address: string;
  readonly family: 'ipv4' | 'ipv6';
}

/** The eight 16-bit groups of an IPv6 address (which isIP has accepted). */
function ipv6Groups(text: string): number[] {
  let head = text;
  const tail: number[] = [];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(head);
  if (dotted !== null) {
    const [a = 0, b = 0, c = 0, d = 0] = (dotted[1] as string).split('.').map(Number);
    tail.push((a << 8) | b, (c << 8) | d);
    head = head.slice(0, -(dotted[1] as string).length);
    if (head.endsWith(':') && !head.endsWith('::')) head = head.slice(0, -1);
  }
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const [left = '', right] = head.split('::');
  const leftGroups = parse(left);
  const rightGroups = [...(right === undefined ? [] : parse(right)), ...tail];
  if (right === undefined) return [...leftGroups, ...tail];
  const zeros = new Array<number>(8 - leftGroups.length - rightGroups.length).fill(0);
  return [...leftGroups, ...zeros, ...rightGroups];
}

function embeddedIpv4(groups: readonly number[]): string {
  const high = groups[6] ?? 0;
  const low = groups[7] ?? 0;
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

/** The address as it will be matched, or undefined when it is not an IP address at all. */
export function normaliseAddress(raw: string): NormalAddress | undefined {
  let text = raw.trim();
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  const version = isIP(text);
  if (version === 4) return { address: text, family: 'ipv4' };
  if (version !== 6) return undefined;
  const groups = ipv6Groups(text.toLowerCase());
  const firstFive = groups.slice(0, 5).every((g) => g === 0);
  const mapped = firstFive && groups[5] === 0xffff;
  const compatible = firstFive && groups[5] === 0 && ((groups[6] ?? 0) !== 0 || (groups[7] ?? 0) > 1);
  const nat64 = groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((g) => g === 0);
  if (mapped || compatible || nat64) return { address: embeddedIpv4(groups), family: 'ipv4' };
  return { address: groups.map((g) => g.toString(16)).join(':'), family: 'ipv6' };
}

/** A set of CIDR blocks, each tagged with why it is in the set. */
export class AddressSet<Tag extends string> {
  private readonly lists = new Map<Tag, BlockList>();

  add(cidr: string, tag: Tag): this {
    const parsed = parseCidr(cidr);
    if (parsed === undefined) throw new Error(`not an address or CIDR block: ${cidr}`);
    let list = this.lists.get(tag);
    if (list === undefined) {
      list = new BlockList();
      this.lists.set(tag, list);
    }
    const normal = normaliseAddress(parsed.address);
    const full = parsed.family === 'ipv4' ? 32 : 128;
    // A single mapped address (::ffff:10.0.0.1) is stored as the IPv4 address it means.
    if (normal !== undefined && normal.family !== parsed.family && parsed.prefix === full)
      list.addAddress(normal.address, normal.family);
    else list.addSubnet(parsed.address, parsed.prefix, parsed.family);
    return this;
  }

  /** The tag of the first block that holds the address, or undefined. */
  match(address: NormalAddress): Tag | undefined {
    for (const [tag, list] of this.lists) if (list.check(address.address, address.family)) return tag;
    return undefined;
  }
}
