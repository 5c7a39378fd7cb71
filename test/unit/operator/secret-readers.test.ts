// Which workspaces read which Secret (issue 26): a Secret event re-enqueues only the workspaces whose
// last reconcile looked it up (found or missing), not every workspace of its namespace.
import { describe, expect, it } from 'vitest';
import { SecretReaders } from '../../../operator/runtime/secret-readers.js';

describe('SecretReaders', () => {
  it('operator:secret-readers — a Secret maps to the workspaces whose last reconcile read it, across awaits and in parallel; a later reconcile replaces what an earlier one read', async () => {
    const readers = new SecretReaders();
    const tick = () => new Promise((resolve) => setTimeout(resolve, 1));
    await Promise.all([
      readers.track('t/a', async () => {
        readers.read('t', 'shared');
        await tick();
        readers.read('t', 'a-key');
      }),
      readers.track('t/b', async () => {
        await tick();
        readers.read('t', 'shared');
        readers.read('t', 'missing-yet');
      }),
    ]);
    expect([...readers.readersOf('t', 'shared')].sort()).toEqual(['t/a', 't/b']);
    expect(readers.readersOf('t', 'a-key')).toEqual(['t/a']);
    expect(readers.readersOf('t', 'missing-yet')).toEqual(['t/b']);
    expect(readers.readersOf('other', 'shared')).toEqual([]);

    // b no longer reads `shared` (its spec changed): only a is left on it.
    await readers.track('t/b', () => {
      readers.read('t', 'missing-yet');
      return Promise.resolve();
    });
    expect(readers.readersOf('t', 'shared')).toEqual(['t/a']);
    // A reconcile that reads nothing (its Workspace was deleted) leaves nothing behind.
    await readers.track('t/a', () => Promise.resolve());
    expect(readers.readersOf('t', 'shared')).toEqual([]);
    expect(readers.readersOf('t', 'a-key')).toEqual([]);
  });

  it('operator:secret-readers-outside — reads outside a reconcile, and after clear() (leadership lost), record nothing; a failed reconcile keeps what it read', async () => {
    const readers = new SecretReaders();
    readers.read('t', 'loose');
    expect(readers.readersOf('t', 'loose')).toEqual([]);
    await expect(
      readers.track('t/a', () => {
        readers.read('t', 'partial');
        return Promise.reject(new Error('apiserver down'));
      }),
    ).rejects.toThrow('apiserver down');
    expect(readers.readersOf('t', 'partial')).toEqual(['t/a']);
    let resume: (() => void) | undefined;
    const running = readers.track('t/a', async () => {
      await new Promise<void>((resolve) => (resume = resolve));
      readers.read('t', 'late');
    });
    await new Promise((resolve) => setTimeout(resolve, 1));
    readers.clear();
    resume?.();
    await running;
    expect(readers.readersOf('t', 'late')).toEqual([]);
    expect(readers.readersOf('t', 'partial')).toEqual([]);
  });
});
