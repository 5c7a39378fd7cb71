import { describe, it, expect } from 'vitest';
import { MemoryDiscoveryCache } from '../../../gateway/discovery/index.js';

function clockedCache(): { cache: MemoryDiscoveryCache<string>; advance: (ms: number) => void } {
  let now = 1_000_000;
  return { cache: new MemoryDiscoveryCache<string>(() => now), advance: (ms) => (now += ms) };
}

describe('MemoryDiscoveryCache', () => {
  it('returns a stored value before its ttl runs out', () => {
    const { cache, advance } = clockedCache();
    cache.set('w/a/1', 'tools', 1000);
    advance(999);
    expect(cache.get('w/a/1')).toBe('tools');
  });

  it('forgets a value once its ttl has passed', () => {
    const { cache, advance } = clockedCache();
    cache.set('w/a/1', 'tools', 1000);
    advance(1000);
    expect(cache.get('w/a/1')).toBeUndefined();
    advance(-1000);
    expect(cache.get('w/a/1')).toBeUndefined();
  });

  it('does not store a value with ttl 0 or less', () => {
    const { cache } = clockedCache();
    cache.set('zero', 'x', 0);
    cache.set('negative', 'x', -5);
    expect(cache.get('zero')).toBeUndefined();
    expect(cache.get('negative')).toBeUndefined();
  });

  it('replaces a value and restarts its ttl on set', () => {
    const { cache, advance } = clockedCache();
    cache.set('k', 'old', 100);
    advance(80);
    cache.set('k', 'new', 100);
    advance(80);
    expect(cache.get('k')).toBe('new');
  });

  it('invalidates every key with the prefix and nothing else', () => {
    const { cache } = clockedCache();
    cache.set('demo/docs/fp1', 'a', 1000);
    cache.set('demo/docs/fp2', 'b', 1000);
    cache.set('demo/docs-eu/fp1', 'c', 1000);
    cache.set('other/docs/fp1', 'd', 1000);
    cache.invalidate('demo/docs/');
    expect(cache.get('demo/docs/fp1')).toBeUndefined();
    expect(cache.get('demo/docs/fp2')).toBeUndefined();
    expect(cache.get('demo/docs-eu/fp1')).toBe('c');
    expect(cache.get('other/docs/fp1')).toBe('d');
  });

  it('invalidates everything with the empty prefix', () => {
    const { cache } = clockedCache();
    cache.set('a', '1', 1000);
    cache.set('b', '2', 1000);
    cache.invalidate('');
    expect([cache.get('a'), cache.get('b')]).toEqual([undefined, undefined]);
  });
});
