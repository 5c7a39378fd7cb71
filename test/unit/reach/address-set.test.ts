// Address normalisation and tagged CIDR sets (issue 20, D19): every spelling of one address as
// another (IPv4-mapped, IPv4-compatible, NAT64, bracketed, zoned, upper-case, zero-padded) is matched
// as the address it carries, so a denied range cannot be reached by writing it differently.
import { describe, expect, it } from 'vitest';
import { AddressSet, normaliseAddress } from '../../../gateway/reach/index.js';

const v4 = (address: string) => ({ address, family: 'ipv4' as const });
const v6 = (address: string) => ({ address, family: 'ipv6' as const });
const LOOPBACK_V6 = '0:0:0:0:0:0:0:1';

describe('normaliseAddress', () => {
  it('reach:address-spellings — mapped, compatible, NAT64, bracketed, zoned and upper-case forms normalise to the address they carry', () => {
    for (const [spelling, expected] of [
      // IPv4-mapped, dotted and hex tails, compressed and full.
      ['::ffff:127.0.0.1', v4('127.0.0.1')],
      ['::ffff:7f00:1', v4('127.0.0.1')],
      ['0:0:0:0:0:ffff:7f00:1', v4('127.0.0.1')],
      ['::ffff:a9fe:a9fe', v4('169.254.169.254')],
      // IPv4-compatible (deprecated, still routable on some stacks).
      ['::127.0.0.1', v4('127.0.0.1')],
      ['::a9fe:a9fe', v4('169.254.169.254')],
      // NAT64 well-known prefix: 64:ff9b::a9fe:a9fe reaches the metadata address through a translator.
      ['64:ff9b::a9fe:a9fe', v4('169.254.169.254')],
      ['64:ff9b::169.254.169.254', v4('169.254.169.254')],
      // Loopback IPv6 in every spelling stays IPv6 loopback (it is not ::0.0.0.1 as IPv4).
      ['::1', v6(LOOPBACK_V6)],
      ['[::1]', v6(LOOPBACK_V6)],
      ['0:0:0:0:0:0:0:1', v6(LOOPBACK_V6)],
      ['0000:0000:0000:0000:0000:0000:0000:0001', v6(LOOPBACK_V6)],
      ['::0.0.0.1', v6(LOOPBACK_V6)],
      ['::', v6('0:0:0:0:0:0:0:0')],
      // Zone ids and brackets are dropped.
      ['fe80::1%eth0', v6('fe80:0:0:0:0:0:0:1')],
      ['[fe80::1%eth0]', v6('fe80:0:0:0:0:0:0:1')],
      // Upper-case hex.
      ['::FFFF:7F00:1', v4('127.0.0.1')],
      ['64:FF9B::A9FE:A9FE', v4('169.254.169.254')],
      ['FE80::ABCD', v6('fe80:0:0:0:0:0:0:abcd')],
      // Plain IPv4, including the unspecified address, passes through.
      ['0.0.0.0', v4('0.0.0.0')],
      ['169.254.169.254', v4('169.254.169.254')],
      [' 10.0.0.1 ', v4('10.0.0.1')],
      // A public IPv6 address stays IPv6, expanded.
      ['2606:4700:4700::1111', v6('2606:4700:4700:0:0:0:0:1111')],
      ['2001:DB8::5', v6('2001:db8:0:0:0:0:0:5')],
    ] as const)
      expect(normaliseAddress(spelling), spelling).toEqual(expected);
  });

  it('returns undefined for text that is not an IP address (names and short or octal IPv4 forms are resolved, not parsed)', () => {
    for (const text of ['localhost', 'example.com', '127.1', '0x7f.0.0.1', '2130706433', '', '[]', '::gg'])
      expect(normaliseAddress(text), text).toBeUndefined();
  });

  it('does not mistake an IPv6 address with a zero head for an embedded IPv4 one', () => {
    // Only ::ffff:0:0/96, ::/96 and 64:ff9b::/96 carry IPv4; the fifth group must be zero.
    expect(normaliseAddress('::1:0:0:7f00:1')).toEqual(v6('0:0:0:1:0:0:7f00:1'));
    expect(normaliseAddress('64:ff9b:1::a9fe:a9fe')).toEqual(v6('64:ff9b:1:0:0:0:a9fe:a9fe'));
  });
});

describe('AddressSet', () => {
  it('matches addresses against tagged blocks and answers undefined outside every block', () => {
    const set = new AddressSet<'private' | 'metadata' | 'ula'>()
      .add('10.0.0.0/8', 'private')
      .add('169.254.169.254', 'metadata')
      .add('fd00::/8', 'ula');
    expect(set.match(v4('10.200.3.4'))).toBe('private');
    expect(set.match(v4('11.0.0.1'))).toBeUndefined();
    // A bare address is one host, not a block.
    expect(set.match(v4('169.254.169.254'))).toBe('metadata');
    expect(set.match(v4('169.254.169.253'))).toBeUndefined();
    expect(set.match(normaliseAddress('FD12:3456::1')!)).toBe('ula');
    expect(set.match(normaliseAddress('fe00::1')!)).toBeUndefined();
  });

  it('matches every spelling once normalised: a mapped or NAT64 address falls in the IPv4 block it carries', () => {
    const set = new AddressSet<'private'>().add('10.0.0.0/8', 'private');
    expect(set.match(normaliseAddress('::ffff:10.1.2.3')!)).toBe('private');
    expect(set.match(normaliseAddress('::ffff:a01:203')!)).toBe('private');
    expect(set.match(normaliseAddress('64:ff9b::a01:203')!)).toBe('private');
    expect(set.match(normaliseAddress('::ffff:b01:203')!)).toBeUndefined();
  });

  it('stores a single mapped address (::ffff:10.0.0.1) as the IPv4 address it means, and a mapped block too', () => {
    const single = new AddressSet<'one'>().add('::ffff:10.0.0.1', 'one');
    expect(single.match(v4('10.0.0.1'))).toBe('one');
    expect(single.match(v4('10.0.0.2'))).toBeUndefined();
    const hex = new AddressSet<'one'>().add('::ffff:a00:1/128', 'one');
    expect(hex.match(normaliseAddress('10.0.0.1')!)).toBe('one');
    const block = new AddressSet<'block'>().add('::ffff:10.0.0.0/104', 'block');
    expect(block.match(normaliseAddress('10.9.8.7')!)).toBe('block');
    expect(block.match(normaliseAddress('11.9.8.7')!)).toBeUndefined();
  });

  it('answers the tag added first when blocks overlap', () => {
    const set = new AddressSet<'wide' | 'narrow'>().add('10.0.0.0/8', 'wide').add('10.1.0.0/16', 'narrow');
    expect(set.match(v4('10.1.2.3'))).toBe('wide');
    const reversed = new AddressSet<'wide' | 'narrow'>()
      .add('10.1.0.0/16', 'narrow')
      .add('10.0.0.0/8', 'wide');
    expect(reversed.match(v4('10.1.2.3'))).toBe('narrow');
    expect(reversed.match(v4('10.2.0.1'))).toBe('wide');
  });

  it('refuses text that is not an address or CIDR block', () => {
    const set = new AddressSet<'x'>();
    for (const bad of ['banana', '10.0.0.0/33', 'fd00::/129', '10.0.0.0/8/8', '10.0.0.0/', 'example.com/24'])
      expect(() => set.add(bad, 'x'), bad).toThrow(/not an address or CIDR block/);
  });
});
