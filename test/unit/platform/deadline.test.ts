import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { deadline, withDeadline } from '../../../gateway/platform/deadline.js';

describe('deadline', () => {
  it('aborts with a TimeoutError once the time-out passes', async () => {
    const limit = deadline(new AbortController().signal, 20);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(limit.signal.aborted).toBe(true);
    expect((limit.signal.reason as Error).name).toBe('TimeoutError');
  });

  it("aborts with the parent's reason when the parent aborts first", () => {
    const parent = new AbortController();
    const limit = deadline(parent.signal, 60_000);
    const reason = new Error('client disconnected');
    parent.abort(reason);
    expect(limit.signal.aborted).toBe(true);
    expect(limit.signal.reason).toBe(reason);
    limit.release();
  });

  it('is aborted at once under a parent that is already aborted', () => {
    const parent = new AbortController();
    parent.abort(new Error('gone'));
    expect(deadline(parent.signal, 60_000).signal.aborted).toBe(true);
  });

  it('leaves nothing behind once released: no listener on the parent, no time-out later', async () => {
    const parent = new AbortController();
    const limit = deadline(parent.signal, 20);
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(1);
    limit.release();
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(limit.signal.aborted).toBe(false);
    parent.abort(new Error('late'));
    expect(limit.signal.aborted).toBe(false);
  });

  it('withDeadline releases when the hop fails too', async () => {
    const parent = new AbortController();
    await expect(
      withDeadline(parent.signal, 60_000, () => Promise.reject(new Error('upstream down'))),
    ).rejects.toThrow('upstream down');
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);
  });
});
