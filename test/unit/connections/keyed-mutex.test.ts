// The in-process lock behind `exclusive` (issue 42): one holder per key, waiters in arrival order,
// each with its own bound; a waiter that gives up keeps the queue intact; held keys are forgotten
// once free (the map stays bounded by the keys in use).
import { describe, expect, it } from 'vitest';
import { ConnectionLockTimeout, KeyedMutex, keyName } from '../../../gateway/connections/keyed-mutex.js';

function gate(): { open: () => void; opened: Promise<void> } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

describe('KeyedMutex', () => {
  it('runs waiters on one key in arrival order, one at a time', async () => {
    const mutex = new KeyedMutex();
    const order: string[] = [];
    const first = gate();
    const runs = [
      mutex.run('k', 1_000, async () => {
        order.push('a');
        await first.opened;
      }),
      mutex.run('k', 1_000, () => Promise.resolve(void order.push('b'))),
      mutex.run('k', 1_000, () => Promise.resolve(void order.push('c'))),
    ];
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(order).toEqual(['a']);
    first.open();
    await Promise.all(runs);
    expect(order).toEqual(['a', 'b', 'c']);
    expect(mutex.size).toBe(0);
  });

  it('rejects a waiter after its bound with an error that names no key', async () => {
    const mutex = new KeyedMutex();
    const holder = gate();
    const held = mutex.run('acme/alice/github', 1_000, () => holder.opened);
    const waited = mutex.run('acme/alice/github', 30, () => Promise.resolve('ran'));
    await expect(waited).rejects.toBeInstanceOf(ConnectionLockTimeout);
    await expect(waited).rejects.not.toThrow(/alice|github/);
    // The holder still holds: one arriving now waits for it, not for the waiter that left.
    let thirdRan = false;
    const third = mutex.run('acme/alice/github', 1_000, () => Promise.resolve(void (thirdRan = true)));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(thirdRan).toBe(false);
    holder.open();
    await Promise.all([held, third]);
    expect(thirdRan).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    expect(mutex.size).toBe(0);
  });

  it('runs different keys at once and frees a key whose task threw', async () => {
    const mutex = new KeyedMutex();
    const b = gate();
    const a = mutex.run('a', 1_000, () => b.opened.then(() => 'a'));
    const ranB = mutex.run('b', 1_000, () => Promise.resolve(b.open()));
    await expect(Promise.all([a, ranB])).resolves.toEqual(['a', undefined]);
    await expect(mutex.run('a', 1_000, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(mutex.run('a', 10, () => Promise.resolve('free'))).resolves.toBe('free');
  });

  it('names keys unambiguously whatever their parts contain', () => {
    expect(keyName({ workspace: 'a', principal: 'b/c', source: 'd' })).not.toBe(
      keyName({ workspace: 'a/b', principal: 'c', source: 'd' }),
    );
  });
});
