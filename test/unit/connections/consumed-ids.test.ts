// Single-use ids of the memory connection store (issue 42): consumed once until they expire, then
// forgotten — swept, so the map holds only ids still in their lifetime.
import { describe, expect, it } from 'vitest';
import { ConsumedIds } from '../../../gateway/connections/consumed-ids.js';

describe('ConsumedIds', () => {
  it('consumes once, refuses an id already past its expiry, and sweeps expired ids', () => {
    let now = 10_000;
    const ids = new ConsumedIds(() => now);
    expect(ids.consume('s1', now + 5_000)).toBe(true);
    expect(ids.consume('s1', now + 5_000)).toBe(false);
    expect(ids.consume('s2', now)).toBe(false);
    for (let i = 0; i < 100; i += 1) ids.consume(`bulk-${i}`, now + 1_000);
    expect(ids.size).toBe(101);
    now += 6_000;
    expect(ids.consume('s3', now + 5_000)).toBe(true);
    expect(ids.size).toBe(1);
    expect(ids.consume('s1', now + 5_000)).toBe(true);
  });
});
