import { describe, it, expect } from 'vitest';
import {
  InvalidConfigError,
  MemoryConfigSource,
  type ConfigSnapshot,
} from '../../../gateway/config/index.js';

const valid = (port: number) => ({ version: 1, server: { port }, workspaces: [{ name: 'demo' }] });

async function started(initial: unknown = valid(8080)): Promise<MemoryConfigSource> {
  const source = new MemoryConfigSource(initial);
  await source.start();
  return source;
}

describe('MemoryConfigSource', () => {
  it('refuses to hand out a snapshot before start', () => {
    expect(() => new MemoryConfigSource(valid(1)).current()).toThrow(/not started/);
  });

  it('starts at revision 1 with the validated config', async () => {
    const source = await started();
    expect(source.current().revision).toBe(1);
    expect(source.current().config.server.port).toBe(8080);
    expect(source.current().config.server.host).toBe('127.0.0.1');
    expect(source.current().loadedAt).toBeInstanceOf(Date);
    await source.close();
  });

  it('increments the revision on every valid set', async () => {
    const source = await started();
    expect(source.set(valid(8081)).revision).toBe(2);
    expect(source.set(valid(8082)).revision).toBe(3);
    expect(source.current().config.server.port).toBe(8082);
    await source.close();
  });

  it('keeps the old snapshot and throws InvalidConfigError on an invalid set', async () => {
    const source = await started();
    const before = source.current();
    let caught: unknown;
    try {
      source.set({ version: 1, workspaces: [{ name: 'demo' }, { name: 'demo' }] });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidConfigError);
    const error = caught as InvalidConfigError;
    expect(error.origin).toBe('memory');
    expect(error.problems.map((p) => p.path)).toContain('workspaces[1].name');
    expect(error.message).toContain('1 problem');
    expect(source.current()).toBe(before);
    expect(source.current().revision).toBe(1);
    await source.close();
  });

  it('notifies subscribers of valid swaps only', async () => {
    const source = await started();
    const seen: ConfigSnapshot[] = [];
    source.subscribe((snapshot) => seen.push(snapshot));
    source.set(valid(9001));
    expect(() => source.set({ version: 3 })).toThrow(InvalidConfigError);
    expect(seen.map((s) => [s.revision, s.config.server.port])).toEqual([[2, 9001]]);
    expect(seen[0]).toBe(source.current());
    await source.close();
  });

  it('stops notifying after unsubscribe', async () => {
    const source = await started();
    const revisions: number[] = [];
    const unsubscribe = source.subscribe((snapshot) => revisions.push(snapshot.revision));
    source.set(valid(1));
    unsubscribe();
    source.set(valid(2));
    expect(revisions).toEqual([2]);
    await source.close();
  });

  it('throws InvalidConfigError from start when the initial value is invalid', async () => {
    const source = new MemoryConfigSource({ version: 1, bogus: 1 });
    await expect(async () => source.start()).rejects.toBeInstanceOf(InvalidConfigError);
    expect(() => source.current()).toThrow(/not started/);
  });

  it('start returns a rejected promise instead of throwing synchronously for an invalid value', async () => {
    const source = new MemoryConfigSource({ version: 2 });
    let pending: Promise<void> | undefined;
    expect(() => {
      pending = source.start();
    }).not.toThrow();
    await expect(pending).rejects.toBeInstanceOf(InvalidConfigError);
  });
});

describe('InvalidConfigError', () => {
  it('counts its problems in the message', () => {
    const error = new InvalidConfigError('/etc/gw.yaml', [
      { path: 'a', message: 'x' },
      { path: 'b', message: 'y' },
    ]);
    expect(error.message).toBe('/etc/gw.yaml: invalid config (2 problems)');
    expect(error.name).toBe('InvalidConfigError');
  });
});
