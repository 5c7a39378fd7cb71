// The task ledger's in-memory twin with an injected clock (issue 43): places per owner bounded,
// expired places never counting, release, extend, held results, owners isolated, nothing kept once
// everything expired.
import { describe, expect, it } from 'vitest';
import { MemoryTaskLedger, type TaskOwner } from '../../../gateway/limits/task-ledger.js';

const alice: TaskOwner = { workspace: 'acme', keyId: 'alice' };

function ledgerAt(start = 1_000_000) {
  const clock = { now: start };
  return { clock, ledger: new MemoryTaskLedger({ now: () => clock.now }) };
}

describe('MemoryTaskLedger', () => {
  it('tasks:ledger-bound — an owner takes at most max places; a refusal takes nothing', async () => {
    const { clock, ledger } = ledgerAt();
    const until = clock.now + 60_000;
    expect(await ledger.reserve(alice, 's1', until, 2)).toBe(true);
    expect(await ledger.reserve(alice, 's2', until, 2)).toBe(true);
    expect(await ledger.reserve(alice, 's3', until, 2)).toBe(false);
    expect(await ledger.reserve(alice, 's3', until, 3)).toBe(true);
    expect(ledger.size.places).toBe(3);
    // s4 was refused: it holds no place, so nothing can be held under it either.
    expect(await ledger.reserve(alice, 's4', until, 3)).toBe(false);
    await ledger.hold(alice, 's4', { content: [] }, until);
    expect(await ledger.held(alice, 's4')).toBeUndefined();
  });

  it('tasks:ledger-expiry — a place stops counting at its end, without a release', async () => {
    const { clock, ledger } = ledgerAt();
    expect(await ledger.reserve(alice, 'short', clock.now + 1000, 1)).toBe(true);
    clock.now += 999;
    expect(await ledger.reserve(alice, 'next', clock.now + 1000, 1)).toBe(false);
    clock.now += 1;
    expect(await ledger.reserve(alice, 'next', clock.now + 1000, 1)).toBe(true);
  });

  it('tasks:ledger-release — a released place is free again and its held result gone', async () => {
    const { clock, ledger } = ledgerAt();
    expect(await ledger.reserve(alice, 'a', clock.now + 60_000, 1)).toBe(true);
    await ledger.hold(alice, 'a', { content: [{ type: 'text', text: 'done' }] }, clock.now + 60_000);
    await ledger.release(alice, 'a');
    expect(await ledger.held(alice, 'a')).toBeUndefined();
    expect(await ledger.reserve(alice, 'b', clock.now + 60_000, 1)).toBe(true);
    // Releasing what is unknown (or twice) changes nothing.
    await ledger.release(alice, 'a');
    await ledger.release({ workspace: 'acme', keyId: 'nobody' }, 'b');
    expect(await ledger.reserve(alice, 'c', clock.now + 60_000, 1)).toBe(false);
  });

  it('tasks:ledger-extend — extend moves a known place’s end; an unknown or expired slot is left alone', async () => {
    const { clock, ledger } = ledgerAt();
    expect(await ledger.reserve(alice, 'call', clock.now + 1000, 1)).toBe(true);
    await ledger.extend(alice, 'call', clock.now + 3_600_000);
    clock.now += 10_000;
    expect(await ledger.reserve(alice, 'other', clock.now + 1000, 1)).toBe(false);
    // An extend can also shorten (the upstream's task expires sooner).
    await ledger.extend(alice, 'call', clock.now + 10);
    clock.now += 10;
    expect(await ledger.reserve(alice, 'other', clock.now + 1000, 1)).toBe(true);
    clock.now += 1000;
    // 'other' has expired: extending it does not bring it back, nor does extending a slot never taken.
    await ledger.extend(alice, 'other', clock.now + 60_000);
    await ledger.extend(alice, 'never', clock.now + 60_000);
    expect(ledger.size).toEqual({ owners: 0, places: 0 });
    expect(await ledger.reserve(alice, 'third', clock.now + 1000, 1)).toBe(true);
  });

  it('tasks:ledger-held — a held result comes back (a copy) until its end, and keeps its place until then', async () => {
    const { clock, ledger } = ledgerAt();
    const result = { content: [{ type: 'text', text: 'forty-two' }], isError: false };
    expect(await ledger.reserve(alice, 'done', clock.now + 5000, 1)).toBe(true);
    expect(await ledger.held(alice, 'done')).toBeUndefined();
    await ledger.hold(alice, 'done', result, clock.now + 600_000);
    const first = await ledger.held(alice, 'done');
    expect(first).toEqual(result);
    expect(first).not.toBe(result);
    (first as { isError: boolean }).isError = true;
    expect(await ledger.held(alice, 'done')).toEqual(result);
    // The place outlives its reservation: it ends with the held result.
    clock.now += 599_999;
    expect(await ledger.reserve(alice, 'next', clock.now + 1000, 1)).toBe(false);
    expect(await ledger.held(alice, 'done')).toEqual(result);
    clock.now += 1;
    expect(await ledger.held(alice, 'done')).toBeUndefined();
    expect(await ledger.reserve(alice, 'next', clock.now + 1000, 1)).toBe(true);
  });

  it('tasks:ledger-owners — places and held results belong to one workspace and key', async () => {
    const { clock, ledger } = ledgerAt();
    const until = clock.now + 60_000;
    const sameKeyOtherWorkspace = { workspace: 'globex', keyId: 'alice' };
    const sameWorkspaceOtherKey = { workspace: 'acme', keyId: 'bob' };
    // Names that would collide if joined without a separator.
    const joined1 = { workspace: 'ac', keyId: 'mealice' };
    expect(await ledger.reserve(alice, 'slot', until, 1)).toBe(true);
    await ledger.hold(alice, 'slot', { content: [], secret: 'alice only' }, until);
    for (const other of [sameKeyOtherWorkspace, sameWorkspaceOtherKey, joined1]) {
      expect(await ledger.held(other, 'slot')).toBeUndefined();
      // Another owner's release, extend and hold of the same slot name change nothing of alice's.
      await ledger.release(other, 'slot');
      await ledger.extend(other, 'slot', clock.now + 1);
      await ledger.hold(other, 'slot', { content: [], secret: 'forged' }, until);
      expect(await ledger.reserve(other, 'slot', until, 1)).toBe(true);
      expect(await ledger.reserve(other, 'second', until, 1)).toBe(false);
    }
    expect(await ledger.held(alice, 'slot')).toEqual({ content: [], secret: 'alice only' });
    expect(await ledger.reserve(alice, 'second', until, 1)).toBe(false);
  });

  it('tasks:ledger-no-growth — expired places and owners are dropped, also of owners that never return', async () => {
    const { clock, ledger } = ledgerAt();
    for (let i = 0; i < 500; i += 1) {
      const owner = { workspace: `ws-${i % 5}`, keyId: `key-${i}` };
      expect(await ledger.reserve(owner, `slot-${i}`, clock.now + 1000, 100)).toBe(true);
      await ledger.hold(
        owner,
        `slot-${i}`,
        { content: [{ type: 'text', text: 'x'.repeat(100) }] },
        clock.now + 2000,
      );
    }
    expect(ledger.size).toEqual({ owners: 500, places: 500 });
    // One owner coming back after its places expired finds none and is forgotten at once.
    clock.now += 2000;
    expect(await ledger.held({ workspace: 'ws-0', keyId: 'key-0' }, 'slot-0')).toBeUndefined();
    expect(ledger.size.owners).toBeLessThan(500);
    // The others never come back: the next access after the sweep interval drops them all.
    clock.now += 60_000;
    expect(await ledger.reserve(alice, 'fresh', clock.now + 1000, 1)).toBe(true);
    expect(ledger.size).toEqual({ owners: 1, places: 1 });
    await ledger.release(alice, 'fresh');
    expect(ledger.size).toEqual({ owners: 0, places: 0 });
  });
});
