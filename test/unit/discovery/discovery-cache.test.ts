import { describe, it, expect } from 'vitest';
import { MemoryDiscoveryCache } from '../../../gateway/discovery/index.js';

function clockedCache(): { cache: MemoryDiscoveryCache<string>; advance: (ms: number) => void } {
  let now = 1_000_000;
  return { cache: new MemoryDiscoveryCache<string>(() => now), advance: (ms) => (now += ms) };
}

describe('MemoryDiscoveryCache', () => {
  it('returns a stored value before its ttl runs out', async () => {
    const { cache, advance } = clockedCache();
    await cache.set('w/a/1', 'tools', 1000);
    advance(999);
    expect(await cache.get('w/a/1')).toBe('tools');
  });

  it('forgets a value once its ttl has passed', async () => {
    const { cache, advance } = clockedCache();
    await cache.set('w/a/1', 'tools', 1000);
    advance(1000);
    expect(await cache.get('w/a/1')).toBeUndefined();
    advance(-1000);
    expect(await cache.get('w/a/1')).toBeUndefined();
  });

  it('does not store a value with ttl 0 or less', async () => {
    const { cache } = clockedCache();
    await cache.set('zero', 'x', 0);
    await cache.set('negative', 'x', -5);
    expect(await cache.get('zero')).toBeUndefined();
    expect(await cache.get('negative')).toBeUndefined();
  });

  it('replaces a value and restarts its ttl on set', async () => {
    const { cache, advance } = clockedCache();
    await cache.set('k', 'old', 100);
    advance(80);
    await cache.set('k', 'new', 100);
    advance(80);
    expect(await cache.get('k')).toBe('new');
  });

  it('invalidates every key with the prefix and nothing else', async () => {
    const { cache } = clockedCache();
    await cache.set('demo/docs/fp1', 'a', 1000);
    await cache.set('demo/docs/fp2', 'b', 1000);
    await cache.set('demo/docs-eu/fp1', 'c', 1000);
    await cache.set('other/docs/fp1', 'd', 1000);
    await cache.invalidate('demo/docs/');
    expect(await cache.get('demo/docs/fp1')).toBeUndefined();
    expect(await cache.get('demo/docs/fp2')).toBeUndefined();
    expect(await cache.get('demo/docs-eu/fp1')).toBe('c');
    expect(await cache.get('other/docs/fp1')).toBe('d');
  });

  it('invalidates everything with the empty prefix', async () => {
    const { cache } = clockedCache();
    await cache.set('a', '1', 1000);
    await cache.set('b', '2', 1000);
    await cache.invalidate('');
    expect([await cache.get('a'), await cache.get('b')]).toEqual([undefined, undefined]);
  });
});

describe('MemoryDiscoveryCache.exclusive', () => {
  it('discovery:single-flight — concurrent callers for one key run the load once; the others wait for it', async () => {
    const { cache } = clockedCache();
    let loads = 0;
    let release: (() => void) | undefined;
    const load = async () => {
      loads += 1;
      await new Promise<void>((resolve) => (release = resolve));
      await cache.set('k', 'listed', 1000);
    };
    const callers = [
      cache.exclusive('k', 1000, load),
      cache.exclusive('k', 1000, load),
      cache.exclusive('k', 1000, load),
    ];
    await new Promise((r) => setTimeout(r, 5));
    release?.();
    await Promise.all(callers);
    expect(loads).toBe(1);
    expect(await cache.get('k')).toBe('listed');
  });
});
