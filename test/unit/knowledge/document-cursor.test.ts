// Opaque get_document cursors (spec §4.2 rule 6): they round-trip, and anything that is not a
// cursor this module issued decodes to undefined instead of throwing.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from '../../../gateway/knowledge/index.js';

function raw(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

describe('document cursors', () => {
  it('round-trip', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme' }),
        fc.nat(),
        fc.string({ unit: 'grapheme' }),
        (docId, nextChunk, version) => {
          const cursor = encodeCursor({ docId, nextChunk, version });
          expect(cursor).toMatch(/^[A-Za-z0-9_-]*$/);
          expect(decodeCursor(cursor)).toEqual({ docId, nextChunk, version });
        },
      ),
    );
  });

  it('reject garbage', () => {
    for (const value of ['', 'garbage', '!!!!', '%%%', 'e30', raw(null), raw('text'), raw(7)])
      expect(decodeCursor(value), value).toBeUndefined();
  });

  it('reject values of the wrong shape', () => {
    for (const value of [
      {},
      { docId: 'd', nextChunk: 1, version: 'v' },
      [],
      ['d', 1],
      ['d', 1, 'v', 'extra'],
      [1, 1, 'v'],
      ['d', '1', 'v'],
      ['d', 1, 2],
      ['d', null, 'v'],
      ['d', 1.5, 'v'],
      [null, 1, 'v'],
    ])
      expect(decodeCursor(raw(value)), JSON.stringify(value)).toBeUndefined();
  });

  it('reject negative chunk numbers', () => {
    expect(decodeCursor(raw(['d', -1, 'v']))).toBeUndefined();
    fc.assert(
      fc.property(fc.integer({ max: -1 }), (n) => {
        expect(decodeCursor(raw(['d', n, 'v']))).toBeUndefined();
      }),
    );
  });

  it('never throw on tampered cursors, and accept only well-formed ones', () => {
    const valid = encodeCursor({ docId: 'd_abc', nextChunk: 8, version: '0123456789abcdef' });
    const b64 = fc.string({
      unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_='),
      maxLength: 12,
    });
    fc.assert(
      fc.property(
        fc.nat({ max: valid.length }),
        b64,
        fc.oneof(
          b64,
          fc.string({
            unit: fc.constantFrom('"', '[', ']', ',', '-', '1', '{', '}', 'é', '\u0000'),
            maxLength: 8,
          }),
        ),
        (cut, middle, tail) => {
          const decoded = decodeCursor(valid.slice(0, cut) + middle + tail);
          if (decoded !== undefined) {
            expect(Number.isInteger(decoded.nextChunk) && decoded.nextChunk >= 0).toBe(true);
            expect(typeof decoded.docId).toBe('string');
            expect(typeof decoded.version).toBe('string');
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
