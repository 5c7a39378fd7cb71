import { describe, expect, it } from 'vitest';
import {
  assignNames,
  CLAIMED_TWICE,
  NOT_BARE,
  RESERVED,
  type NameClaim,
} from '../../../gateway/discovery/index.js';

const claim = (source: string, policy: NameClaim['policy'], name: string): NameClaim => ({
  source,
  policy,
  canonical: `${source}__${name}`,
  bare: name,
});

describe('exposed names (issue 24 naming policy)', () => {
  it('always: the canonical name, whatever the others claim', () => {
    const names = assignNames([claim('a', 'always', 'echo'), claim('b', 'never', 'echo')]);
    expect(names.exposed.get('a__echo')).toBe('a__echo');
    // b's bare claim is the only bare claim: an always source does not compete for bare names.
    expect(names.exposed.get('b__echo')).toBe('echo');
    expect(names.bareOwner.get('echo')).toBe('b__echo');
  });

  it('never: a name claimed twice is given to nobody and both are reported', () => {
    const names = assignNames([
      claim('a', 'never', 'echo'),
      claim('b', 'never', 'echo'),
      claim('a', 'never', 'add'),
    ]);
    expect(names.exposed.has('a__echo')).toBe(false);
    expect(names.exposed.has('b__echo')).toBe(false);
    expect(names.bareOwner.has('echo')).toBe(false);
    expect(names.exposed.get('a__add')).toBe('add');
    expect(names.collisions).toEqual([
      { source: 'a', name: 'echo', reason: CLAIMED_TWICE },
      { source: 'b', name: 'echo', reason: CLAIMED_TWICE },
    ]);
  });

  it('auto: a name claimed twice falls back to the canonical form for both, never to one of them', () => {
    const names = assignNames([claim('a', 'auto', 'echo'), claim('b', 'never', 'echo')]);
    expect(names.exposed.get('a__echo')).toBe('a__echo');
    expect(names.exposed.has('b__echo')).toBe(false);
    expect(names.bareOwner.has('echo')).toBe(false);
  });

  it('reserved names are never exposed bare', () => {
    const names = assignNames(
      [claim('a', 'never', 'search'), claim('b', 'auto', 'find_tools')],
      new Set(['search', 'find_tools']),
    );
    expect(names.exposed.has('a__search')).toBe(false);
    expect(names.collisions[0]).toEqual({ source: 'a', name: 'search', reason: RESERVED });
    expect(names.exposed.get('b__find_tools')).toBe('b__find_tools');
  });

  it('an item with no bare form is canonical under auto and reported under never', () => {
    const names = assignNames([
      { source: 'a', policy: 'auto', canonical: 'agw://a/x', bare: undefined },
      { source: 'b', policy: 'never', canonical: 'agw://b/y', bare: undefined },
    ]);
    expect(names.exposed.get('agw://a/x')).toBe('agw://a/x');
    expect(names.collisions).toEqual([{ source: 'b', name: 'agw://b/y', reason: NOT_BARE }]);
  });

  it('adding a source makes a bare name disappear, never point at the new source', () => {
    const before = assignNames([claim('a', 'never', 'echo')]);
    const after = assignNames([claim('a', 'never', 'echo'), claim('b', 'never', 'echo')]);
    expect(before.bareOwner.get('echo')).toBe('a__echo');
    expect(after.bareOwner.get('echo')).toBeUndefined();
  });

  it('does not depend on the order of the claims', () => {
    const claims = [
      claim('a', 'never', 'x'),
      claim('b', 'auto', 'x'),
      claim('c', 'auto', 'y'),
      claim('d', 'never', 'z'),
    ];
    const forward = assignNames(claims);
    const backward = assignNames([...claims].reverse());
    expect([...backward.exposed].sort()).toEqual([...forward.exposed].sort());
    expect(backward.collisions).toEqual(forward.collisions);
  });
});
